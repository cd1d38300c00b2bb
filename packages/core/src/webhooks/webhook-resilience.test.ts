import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EgressGuard } from '../egress';
import { createTestServer, respond, type TestServer } from '../test';
import { defaultSleep, WebhookToolkit } from './webhook-toolkit';
import type { WebhookCard, WebhookCardConfig } from './types';

let server: TestServer;
let guard: EgressGuard;
let closedPort: number;

beforeAll(async () => {
  server = await createTestServer({ '*': (_request, response) => respond.json(response, 200, { ok: true }) });
  guard = new EgressGuard({ allow: ['127.0.0.1'] });
  const closed = await createTestServer();
  closedPort = closed.port;
  await closed.close();
});
afterAll(async () => {
  await guard.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

function card(path: string, config: Partial<WebhookCardConfig> = {}, name = 'Resilience'): WebhookCard {
  return { name, config: { baseUrl: server.url, routes: [{ name: 'call', description: 'd', whenToUse: 'w', path }], ...config } };
}

/** Answers by destroying the connection for the first `failures` requests, then 200. */
function flaky(path: string, failures: number): void {
  let seen = 0;
  server.route('GET', path, (_request, response) => {
    seen++;
    if (seen <= failures) response.socket?.destroy();
    else respond.json(response, 200, { attempt: seen });
  });
}

describe('retries (network failures only)', () => {
  it('retries up to maxRetries (default 2) after the first attempt, waiting 1 s then 2 s', async () => {
    const waits: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async (ms) => void waits.push(ms) });
    flaky('/flaky', 2);
    const output = await toolkit.execute(card('/flaky'), 'call', {});
    expect(JSON.parse(output)).toEqual({ attempt: 3 });
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([1000, 2000]);
  });

  it('gives up after 3 attempts on a refused connection', async () => {
    const waits: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async (ms) => void waits.push(ms) });
    const output = await toolkit.execute(card('/x', { baseUrl: `http://127.0.0.1:${closedPort}` }), 'call', {});
    expect(output).toMatch(/^Error: Request failed - /);
    expect(waits).toEqual([1000, 2000]);
  });

  it('honours maxRetries and retryOnError false', async () => {
    const waits: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async (ms) => void waits.push(ms) });
    flaky('/once', 5);
    await toolkit.execute(card('/once', { maxRetries: 1 }), 'call', {});
    expect(server.requests).toHaveLength(2);
    expect(waits).toEqual([1000]);
    server.requests.length = 0;
    waits.length = 0;
    flaky('/never', 5);
    const output = await toolkit.execute(card('/never', { retryOnError: false }), 'call', {});
    expect(output).toMatch(/^Error: Request failed - /);
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a status >= 400', async () => {
    const waits: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async (ms) => void waits.push(ms) });
    server.route('GET', '/busy', (_request, response) => respond.json(response, 503, { error: 'busy' }));
    expect(await toolkit.execute(card('/busy'), 'call', {})).toBe('Error: HTTP 503 - {"error":"busy"}');
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe('retry waits with fake timers (default sleep)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Lets real I/O run (setImmediate and Date are not faked) until `condition` holds or 2 s pass. */
  async function settle(condition: () => boolean = () => true, ms = 50): Promise<void> {
    const deadline = Date.now() + (condition() ? 0 : 2_000);
    const quiet = Date.now() + ms;
    while (!condition() && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    while (Date.now() < quiet) await new Promise((resolve) => setImmediate(resolve));
  }

  it('waits exactly 1 s before the second attempt and 2 s before the third', async () => {
    // The real default sleep (setTimeout, faked here); the wrapper only tells the test a wait has begun.
    const started: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: (ms, signal) => (started.push(ms), defaultSleep(ms, signal)) });
    flaky('/timed', 2);
    const pending = toolkit.execute(card('/timed'), 'call', {});
    await settle(() => started.length === 1);
    await vi.advanceTimersByTimeAsync(999);
    await settle();
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle(() => started.length === 2);
    expect(server.requests).toHaveLength(2);
    expect(started).toEqual([1000, 2000]);
    await vi.advanceTimersByTimeAsync(1_999);
    await settle();
    expect(server.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await settle(() => server.requests.length === 3);
    expect(JSON.parse(await pending)).toEqual({ attempt: 3 });
  });
});

describe('timeout', () => {
  it('answers Error: Timeout when a call exceeds config.timeout', async () => {
    server.route('GET', '/hang', () => new Promise(() => {}));
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async () => {} });
    const started = Date.now();
    expect(await toolkit.execute(card('/hang', { timeout: 150, retryOnError: false }), 'call', {})).toBe('Error: Timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a timeout is a network failure: retried, then Error: Timeout', async () => {
    server.route('GET', '/hang', () => new Promise(() => {}));
    const waits: number[] = [];
    const toolkit = new WebhookToolkit({ egress: guard, sleep: async (ms) => void waits.push(ms) });
    expect(await toolkit.execute(card('/hang', { timeout: 100 }), 'call', {})).toBe('Error: Timeout');
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([1000, 2000]);
  });
});

describe('maxRequestsPerMinute (sliding window per card)', () => {
  it('refuses the call over the limit within any one-minute window, without sending it', async () => {
    let now = 1_000_000;
    const toolkit = new WebhookToolkit({ egress: guard, now: () => now });
    const limited = card('/rl', { maxRequestsPerMinute: 2 });
    const at = async (ms: number) => {
      now = 1_000_000 + ms;
      return toolkit.execute(limited, 'call', {});
    };
    expect(await at(0)).not.toMatch(/^Error/);
    expect(await at(10_000)).not.toMatch(/^Error/);
    expect(await at(20_000)).toBe('Error: rate limit reached');
    expect(await at(59_999)).toBe('Error: rate limit reached');
    expect(await at(60_001)).not.toMatch(/^Error/);
    expect(await at(60_002)).toBe('Error: rate limit reached');
    expect(await at(70_001)).not.toMatch(/^Error/);
    expect(server.requests).toHaveLength(4);
  });

  it('keeps one window per card, or per rateLimitKey', async () => {
    const toolkit = new WebhookToolkit({ egress: guard, now: () => 5 });
    const first = card('/rl', { maxRequestsPerMinute: 1 }, 'First');
    const second = card('/rl', { maxRequestsPerMinute: 1 }, 'Second');
    expect(await toolkit.execute(first, 'call', {})).not.toMatch(/^Error/);
    expect(await toolkit.execute(first, 'call', {})).toBe('Error: rate limit reached');
    expect(await toolkit.execute(second, 'call', {})).not.toMatch(/^Error/);
    expect(await toolkit.execute(first, 'call', {}, { rateLimitKey: 'agent-2:card' })).not.toMatch(/^Error/);
    expect(await toolkit.execute(first, 'call', {}, { rateLimitKey: 'agent-2:card' })).toBe('Error: rate limit reached');
  });
});

describe('egress through the toolkit', () => {
  it('a DNS name resolving to a private address is refused (injected resolver)', async () => {
    const toolkit = new WebhookToolkit({ egress: new EgressGuard({ lookup: async () => ['192.168.1.10'] }), sleep: async () => {} });
    expect(await toolkit.execute(card('/x', { baseUrl: 'https://intranet.example.com' }), 'call', {})).toBe(
      'Error: destination not allowed',
    );
  });

  it('a redirect from an allowed server to a refused address is refused, not followed', async () => {
    const other = await createTestServer({ '*': (_request, response) => respond.json(response, 200, { leaked: true }) });
    server.route('GET', '/to-other', (_request, response) => {
      response.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${other.port}/secret` });
      response.end();
    });
    const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: [`127.0.0.1:${server.port}`] }), sleep: async () => {} });
    expect(await toolkit.execute(card('/to-other'), 'call', {})).toBe('Error: destination not allowed');
    expect(other.requests).toHaveLength(0);
    await other.close();
  });
});
