import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInTools } from '../agents/built-in-tools';
import { loadConfig } from '../config';
import { requestEmbeddings } from '../embeddings/openai-embedder';
import { providerJson } from '../jobs/sources/provider-request';
import { ChatAdapter } from '../models/chat-adapter';
import { UpstreamClient } from '../models/upstream-client';
import { createTestServer, respond, type TestServer } from '../test/test-server';
import { openRequest, requestJson } from './request';

const LIMIT = 64 * 1024;
const TOO_MUCH = 64 * 1024 * 1024;

/**
 * The four former outbound sites (model provider client, embeddings service, data providers, the
 * agents' web_search) all go through `transport/request.ts`: against a real local server that stalls
 * or sends far too much, each gives up after its timeout (504) or its byte bound (502) instead of
 * waiting or buffering without end.
 */
describe('every outbound site', () => {
  let server: TestServer;
  /** Bytes the "too much" route had written when its client went away, per request. */
  const sent: number[] = [];

  async function tooMuch(response: ServerResponse): Promise<void> {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let written = 0;
    while (written < TOO_MUCH && !response.destroyed) {
      if (!response.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            response.off('drain', done).off('close', done);
            resolve();
          };
          response.on('drain', done).on('close', done);
        });
      }
      written += chunk.length;
    }
    sent.push(written);
    response.end();
  }
  const stall = () => undefined;
  const stallBody = (_request: unknown, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"data": [');
  };

  beforeAll(async () => {
    server = await createTestServer({
      'POST /stall/chat/completions': stall,
      'POST /slow/chat/completions': stallBody,
      'POST /big/chat/completions': (_request, response) => tooMuch(response),
      'POST /stall/embeddings': stall,
      'POST /big/embeddings': (_request, response) => tooMuch(response),
      'POST /stall/source': stall,
      'GET /slow/source': stallBody,
      'POST /big/source': (_request, response) => tooMuch(response),
      'GET /stall/search': stall,
      'GET /big/search': (_request, response) => tooMuch(response),
    });
  });
  afterAll(() => server.close());

  const timedOut = { status: 504, code: 'timeout' };
  const tooLarge = { status: 502, code: 'upstream_response_too_large', message: expect.stringContaining(`more than ${LIMIT} bytes`) };
  /** The big answer was cut: the connection closed long before the server could send it all. */
  const cutShort = async (before: number) => {
    await expect.poll(() => sent.length, { timeout: 5000 }).toBeGreaterThan(before);
    expect(sent.at(-1)).toBeLessThan(TOO_MUCH);
  };

  it('model provider calls: headers timeout, body silence timeout and bounded answers', async () => {
    const client = (prefix: string) =>
      new UpstreamClient({ baseUrl: `${server.url}/${prefix}`, name: 'fake', timeoutMs: 200, maxBodyBytes: LIMIT });
    const stalled = client('stall');
    const slow = client('slow');
    const big = client('big');
    try {
      await expect(stalled.json('POST', '/chat/completions', {})).rejects.toMatchObject(timedOut);
      await expect(slow.json('POST', '/chat/completions', {})).rejects.toMatchObject(timedOut);
      // A stream read chunk by chunk is bounded too.
      const before = sent.length;
      const response = await big.request('POST', '/chat/completions', {});
      await expect(
        (async () => {
          for await (const _chunk of response.body);
        })(),
      ).rejects.toMatchObject(tooLarge);
      await cutShort(before);
    } finally {
      await Promise.all([stalled.close(), slow.close(), big.close()]);
    }
  });

  it('the embeddings service', async () => {
    const options = { model: 'm', timeoutMs: 200, maxBodyBytes: LIMIT, maxAttempts: 1 };
    await expect(requestEmbeddings({ ...options, baseURL: `${server.url}/stall` }, ['x'])).rejects.toMatchObject(timedOut);
    const before = sent.length;
    await expect(requestEmbeddings({ ...options, baseURL: `${server.url}/big` }, ['x'])).rejects.toMatchObject(tooLarge);
    await cutShort(before);
  });

  it('data providers, with undici or an injected fetch (a proxy, the egress guard)', async () => {
    for (const fetchImpl of [undefined, fetch]) {
      const limits = { provider: 'Source', timeoutMs: 200, maxBodyBytes: LIMIT };
      await expect(providerJson(fetchImpl, `${server.url}/stall/source`, { ...limits, json: {} })).rejects.toMatchObject(timedOut);
      await expect(providerJson(fetchImpl, `${server.url}/slow/source`, limits)).rejects.toMatchObject(timedOut);
      const before = sent.length;
      await expect(providerJson(fetchImpl, `${server.url}/big/source`, { ...limits, json: {} })).rejects.toMatchObject(tooLarge);
      await cutShort(before);
    }
  });

  it("the agents' web_search built-in: the model is told the search failed", async () => {
    const chat = new ChatAdapter({ config: loadConfig({}), usage: { record: () => undefined } });
    const run = (path: string) => {
      const [, search] = builtInTools(chat, { url: `${server.url}${path}`, key: 'search-key' }, { timeoutMs: 200, maxBodyBytes: LIMIT });
      return search!.run({ query: 'fathom' }, { model: 'x/y', signal: new AbortController().signal, accountId: 'acct' });
    };
    expect(await run('/stall/search')).toMatch(/^Error: web search failed - The search service timed out/);
    const before = sent.length;
    expect(await run('/big/search')).toMatch(
      new RegExp(`^Error: web search failed - The search service answered more than ${LIMIT} bytes`),
    );
    await cutShort(before);
    await chat.close();
  });
});

describe('the outbound request function', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(() => server.close());

  it("retries a 429 after the upstream's retry-after, and a 5xx with backoff", async () => {
    let calls = 0;
    server.route('GET', '/flaky', (_request, response) => {
      calls++;
      if (calls === 1) respond.json(response, 429, { error: { message: 'slow down' } }, { 'retry-after': '0.3' });
      else if (calls === 2) respond.json(response, 503, { error: { message: 'busy' } });
      else respond.json(response, 200, { ok: true });
    });
    const started = Date.now();
    const value = await requestJson({ url: `${server.url}/flaky`, what: 'Flaky', retry: { initialDelayMs: 10 } });
    expect(value).toEqual({ ok: true });
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('does not repeat a data provider POST the provider may have processed, but does repeat a read', async () => {
    let posts = 0;
    let gets = 0;
    server.route('POST', '/work', (_request, response) => {
      posts++;
      respond.json(response, 500, { error: { message: 'crashed after the work' } });
    });
    server.route('GET', '/read', (_request, response) => {
      gets++;
      if (gets === 1) respond.json(response, 502, { error: { message: 'bad gateway' } });
      else respond.json(response, 200, { items: [] });
    });
    await expect(providerJson(undefined, `${server.url}/work`, { provider: 'Work', json: {} })).rejects.toMatchObject({ status: 502 });
    expect(posts).toBe(1);
    await expect(providerJson(undefined, `${server.url}/read`, { provider: 'Read' })).resolves.toEqual({ items: [] });
    expect(gets).toBe(2);
  });

  it('passes an abort through unchanged, and reads error answers only as far as their message needs', async () => {
    server.route('POST', '/never', () => undefined);
    const controller = new AbortController();
    const pending = openRequest({ url: `${server.url}/never`, method: 'POST', body: '{}', what: 'Never', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client left')), 50);
    await expect(pending).rejects.toThrow('client left');

    server.route('GET', '/huge-error', (_request, response) => respond.text(response, 400, 'x'.repeat(10 * 1024 * 1024)));
    const error = await openRequest({ url: `${server.url}/huge-error`, what: 'Huge' }).catch((failure) => failure);
    expect(error).toMatchObject({ status: 400 });
    expect(error.responseBody.length).toBeLessThanOrEqual(4000);
  });
});
