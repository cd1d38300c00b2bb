import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, respond, type TestServer } from '../test';
import { EgressGuard, type EgressResolver } from './egress-guard';
import { EgressDeniedError, EgressRedirectError, EgressTimeoutError } from './egress-errors';

let server: TestServer;
let other: TestServer;

beforeAll(async () => {
  server = await createTestServer({
    'GET /hello': (_request, response) => respond.json(response, 200, { hello: 'world' }),
    'GET /big': (_request, response) => respond.text(response, 200, 'x'.repeat(100_000)),
    'GET /hang': () => new Promise(() => {}),
    'POST /see-other': (_request, response) => {
      response.writeHead(303, { location: '/hello' });
      response.end();
    },
    'GET /loop': (_request, response) => {
      response.writeHead(302, { location: '/loop' });
      response.end();
    },
  });
  other = await createTestServer({ '*': (_request, response) => respond.json(response, 200, { other: true }) });
});

afterAll(async () => {
  await server.close();
  await other.close();
});

function redirectTo(location: string): void {
  server.route('GET', '/redirect', (_request, response) => {
    response.writeHead(302, { location });
    response.end();
  });
}

async function refusal(promise: Promise<unknown>): Promise<EgressDeniedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EgressDeniedError);
  expect((error as EgressDeniedError).code).toBe('destination_not_allowed');
  expect((error as EgressDeniedError).status).toBe(403);
  return error as EgressDeniedError;
}

describe('EgressGuard refusals (before any connection)', () => {
  const guard = new EgressGuard({
    allow: [],
    lookup: async () => {
      throw new Error('no DNS in tests');
    },
  });

  it.each([
    ['v4 private 10/8', 'http://10.0.0.1/'],
    ['v4 private 172.16/12', 'http://172.20.1.1/'],
    ['v4 private 192.168/16', 'https://192.168.0.10/admin'],
    ['v4 loopback', 'http://127.0.0.1:1/'],
    ['v4 link-local', 'http://169.254.1.1/'],
    ['v4 CGNAT', 'http://100.64.1.1/'],
    ['v4 metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['v4 unspecified', 'http://0.0.0.0/'],
    ['v6 loopback', 'http://[::1]/'],
    ['v6 unspecified', 'http://[::]/'],
    ['v6 unique-local', 'http://[fd12:3456::1]/'],
    ['v6 metadata', 'http://[fd00:ec2::254]/'],
    ['v6 link-local', 'http://[fe80::1]/'],
    ['v4-mapped v6', 'http://[::ffff:127.0.0.1]/'],
    ['v4-mapped v6 metadata', 'http://[::ffff:a9fe:a9fe]/'],
    ['decimal spelling', 'http://2130706433/'],
    ['octal spelling', 'http://0177.0.0.1/'],
    ['hex spelling', 'http://0x7f.0.0.1/'],
    ['hex integer spelling', 'http://0x7f000001/'],
    ['short spelling', 'http://127.1/'],
  ])('%s: %s', async (_label, url) => {
    await refusal(guard.request(url));
  });

  it('refuses the local test server itself when it is not allowed, and it receives nothing', async () => {
    const before = server.requests.length;
    await refusal(guard.request(`${server.url}/hello`));
    expect(server.requests.length).toBe(before);
  });

  it.each(['file:///etc/passwd', 'ftp://8.8.8.8/x', 'gopher://8.8.8.8/', 'not a url'])('refuses the scheme of %s', async (url) => {
    await refusal(guard.request(url));
  });

  it('refuses a DNS name resolving to a private address (injected resolver)', async () => {
    const names: string[] = [];
    const resolver: EgressResolver = async (host) => {
      names.push(host);
      return [{ address: '10.0.0.5', family: 4 }];
    };
    const dnsGuard = new EgressGuard({ lookup: resolver });
    const error = await refusal(dnsGuard.request('https://internal.example.com/secrets'));
    expect(names).toEqual(['internal.example.com']);
    expect(error.message).toContain('10.0.0.5');
  });

  it('refuses a name when any one of its addresses is blocked', async () => {
    const dnsGuard = new EgressGuard({ lookup: async () => ['93.184.216.34', '::ffff:169.254.169.254'] });
    await refusal(dnsGuard.request('http://mixed.example.com/'));
  });

  it('refuses localhost (resolving to 127.0.0.1 and ::1)', async () => {
    const dnsGuard = new EgressGuard({ lookup: async () => ['127.0.0.1', '::1'] });
    await refusal(dnsGuard.request(`http://localhost:${server.port}/hello`));
  });
});

describe('EgressGuard allow list and pinned connections', () => {
  it('reaches an allowed loopback IP', async () => {
    const guard = new EgressGuard({ allow: ['127.0.0.1'] });
    const response = await guard.request(`${server.url}/hello`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text())).toEqual({ hello: 'world' });
    expect(response.headers['content-type']).toBe('application/json');
    await guard.close();
  });

  it('honours host:port entries (other ports stay refused)', async () => {
    const guard = new EgressGuard({ allow: [`127.0.0.1:${server.port}`] });
    expect((await guard.request(`${server.url}/hello`)).status).toBe(200);
    await refusal(guard.request(`${other.url}/x`));
    await guard.close();
  });

  it('normalises numeric spellings in allow entries', async () => {
    const guard = new EgressGuard({ allow: ['0x7f.0.0.1'] });
    expect((await guard.request(`http://2130706433:${server.port}/hello`)).status).toBe(200);
    await guard.close();
  });

  it('connects an allowed host name to the address it checked (pinned lookup, no second DNS query)', async () => {
    let calls = 0;
    const guard = new EgressGuard({
      allow: ['api.fathom.test'],
      lookup: async () => {
        calls++;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    // api.fathom.test exists in no DNS: the request only works because connect uses the pinned address.
    const response = await guard.request(`http://api.fathom.test:${server.port}/hello`);
    expect(response.status).toBe(200);
    expect(calls).toBe(1);
    expect(server.requests.at(-1)?.headers.host).toBe(`api.fathom.test:${server.port}`);
    await guard.close();
  });

  it('pins fully-qualified names with a trailing dot too', async () => {
    const guard = new EgressGuard({ allow: ['api.fathom.test'], lookup: async () => ['127.0.0.1'] });
    expect((await guard.request(`http://API.fathom.test.:${server.port}/hello`)).status).toBe(200);
    await guard.close();
  });

  it('allows a name whose every address is an allowed IP', async () => {
    const guard = new EgressGuard({ allow: ['127.0.0.1'], lookup: async () => ['127.0.0.1'] });
    expect((await guard.request(`http://localhost:${server.port}/hello`)).status).toBe(200);
    await guard.close();
  });
});

describe('EgressGuard redirects, deadline and size', () => {
  it('follows a redirect between allowed hops and reports the final URL', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    redirectTo('/hello');
    const response = await allowed.request(`${server.url}/redirect`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${server.url}/hello`);
    await allowed.close();
  });

  it.each([
    ['v6 loopback', () => `http://[::1]:${server.port}/hello`],
    ['metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['decimal loopback on another port', () => `http://2130706433:${other.port}/x`],
    ['an unlisted port', () => `${other.url}/x`],
  ])('refuses a redirect from an allowed server to %s', async (_label, target) => {
    const allowed = new EgressGuard({ allow: [`127.0.0.1:${server.port}`] });
    const before = other.requests.length;
    redirectTo(target());
    await refusal(allowed.request(`${server.url}/redirect`));
    expect(other.requests.length).toBe(before);
    await allowed.close();
  });

  it('turns POST into GET on 303 and drops the body', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    const response = await allowed.request(`${server.url}/see-other`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    const last = server.requests.at(-1)!;
    expect(last.method).toBe('GET');
    expect(last.body).toBe('');
    await allowed.close();
  });

  it('stops after maxRedirects hops, or returns the 3xx when maxRedirects is 0', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    await expect(allowed.request(`${server.url}/loop`)).rejects.toBeInstanceOf(EgressRedirectError);
    const raw = await allowed.request(`${server.url}/loop`, { maxRedirects: 0 });
    expect(raw.status).toBe(302);
    await allowed.close();
  });

  it('enforces the whole-request deadline', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    const started = Date.now();
    await expect(allowed.request(`${server.url}/hang`, { timeoutMs: 150 })).rejects.toBeInstanceOf(EgressTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    await allowed.close();
  });

  it('stops reading after maxBytes and marks the response truncated', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    const response = await allowed.request(`${server.url}/big`, { maxBytes: 1000 });
    expect(response.body.length).toBe(1000);
    expect(response.truncated).toBe(true);
    const whole = await allowed.request(`${server.url}/big`);
    expect(whole.body.length).toBe(100_000);
    expect(whole.truncated).toBe(false);
    await allowed.close();
  });

  it('passes an external abort signal through', async () => {
    const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(allowed.request(`${server.url}/hang`, { signal: controller.signal })).rejects.toThrow();
    await allowed.close();
  });
});
