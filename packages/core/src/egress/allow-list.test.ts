import { describe, expect, it } from 'vitest';
import { effectivePort, isAllowed, parseAllowList } from './allow-list';

describe('AGENT_EGRESS_ALLOW entries', () => {
  it('parses hosts, IPs, host:port, bracketed and bare IPv6, normalising spellings', () => {
    expect(
      parseAllowList([
        'API.Internal',
        '10.0.0.5',
        'svc.local:8080',
        '[::1]:9000',
        'fd00::5',
        '0x7f.1',
        ' ',
        'http://bad entry',
        'a/b',
        'http://svc.url:81/',
      ]),
    ).toEqual([
      { host: 'api.internal', port: undefined },
      { host: '10.0.0.5', port: undefined },
      { host: 'svc.local', port: '8080' },
      { host: '::1', port: '9000' },
      { host: 'fd00::5', port: undefined },
      { host: '127.0.0.1', port: undefined },
      { host: 'svc.url', port: '81' },
    ]);
  });

  it('keeps an explicit default port', () => {
    expect(parseAllowList(['svc.local:80'])).toEqual([{ host: 'svc.local', port: '80' }]);
  });

  it('matches host and port (an entry without port matches every port)', () => {
    const list = parseAllowList(['svc.local:8080', 'db.local', '[::1]:9000']);
    expect(isAllowed(list, 'SVC.local.', '8080')).toBe(true);
    expect(isAllowed(list, 'svc.local', '8081')).toBe(false);
    expect(isAllowed(list, 'db.local', '5432')).toBe(true);
    expect(isAllowed(list, '[::1]', '9000')).toBe(true);
    expect(isAllowed(list, '::1', '9001')).toBe(false);
    expect(isAllowed(list, 'other.local', '80')).toBe(false);
  });

  it('knows default ports per scheme', () => {
    expect(effectivePort(new URL('https://a.example'))).toBe('443');
    expect(effectivePort(new URL('http://a.example'))).toBe('80');
    expect(effectivePort(new URL('http://a.example:81'))).toBe('81');
  });
});
