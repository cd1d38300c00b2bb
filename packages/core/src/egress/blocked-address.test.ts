import { describe, expect, it } from 'vitest';
import { addressRange, isBlockedAddress } from './blocked-address';

describe('isBlockedAddress', () => {
  const blocked: Array<[string, string]> = [
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.10.20', 'linkLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::7f00:1', 'ipv4Compatible'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['[::1]', 'loopback'],
  ];
  it.each(blocked)('refuses %s (%s)', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    'allows the public address %s',
    (ip) => expect(isBlockedAddress(ip)).toBe(false),
  );

  it('refuses anything that is not an address', () => {
    expect(isBlockedAddress('localhost')).toBe(true);
    expect(isBlockedAddress('')).toBe(true);
    expect(isBlockedAddress('2130706433')).toBe(true);
  });
});
