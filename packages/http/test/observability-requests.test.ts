import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import OpenAI, { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerLogger } from '../src/logger';
import { createServer } from '../src/server';
import { startFathom, type TestFathom } from './harness';

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

let upstream: FakeUpstream;
let server: TestFathom;
/** A second listener over the same Fathom, logging JSON lines into `lines`. */
let logged: FastifyInstance;
let loggedUrl: string;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({
    env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-upstream-secret' } }) },
  });
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  logged = await createServer(server.fathom, { loggerInstance: createServerLogger({ level: 'info', pretty: false, destination }) });
  await logged.listen({ port: 0, host: '127.0.0.1' });
  loggedUrl = `http://127.0.0.1:${(logged.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await logged?.close();
  await server?.close();
  await upstream?.close();
});

describe('x-request-id through openai-node', () => {
  it('gives a completion its req_ id as _request_id', async () => {
    upstream.push({ content: 'Hi there.', usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const completion = await server.client.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion._request_id).toMatch(REQUEST_ID);
  });

  it('gives an error its id as requestID', async () => {
    const error = await server.client.files.retrieve('file-missing').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).requestID).toMatch(REQUEST_ID);
  });

  it('gives a stream its id, and the stream still carries every chunk', async () => {
    upstream.push({ content: 'one two three', usage: { prompt_tokens: 4, completion_tokens: 3 } });
    const { data: stream, request_id } = await server.client.chat.completions
      .create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'count' }], stream: true })
      .withResponse();
    expect(request_id).toMatch(REQUEST_ID);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('one two three');
  });

  it('a different id for each request', async () => {
    const client = new OpenAI({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 });
    const [a, b] = await Promise.all([client.models.list().withResponse(), client.models.list().withResponse()]);
    expect(a.request_id).toMatch(REQUEST_ID);
    expect(b.request_id).not.toBe(a.request_id);
  });
});

describe('x-request-id on every answer', () => {
  it('on 401, 404 of an unknown URL, and a malformed URL', async () => {
    const unauthorized = await server.request('/v1/files', { apiKey: 'wrong' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const unknown = await server.request('/v1/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-request-id')).toMatch(REQUEST_ID);
    const malformed = await server.request('/v1/files/%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });

  it("keeps the caller's x-request-id, else takes the trace id of its traceparent", async () => {
    const given = await server.request('/v1/models', { headers: { 'x-request-id': 'req_from-the-gateway.42' } });
    expect(given.headers.get('x-request-id')).toBe('req_from-the-gateway.42');
    const traced = await server.request('/v1/models', {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    expect(traced.headers.get('x-request-id')).toBe('req_4bf92f3577b34da6a3ce929d0e0e4736');
    // A header that could forge log lines or grow without bound is not an id: the server makes its own.
    const forged = await server.request('/v1/models', { headers: { 'x-request-id': 'a b\tc' } });
    expect(forged.headers.get('x-request-id')).toMatch(REQUEST_ID);
  });
});

describe('request log lines', () => {
  it('one JSON line per request: its id, method, route template, status, duration and account; no key, no prompt', async () => {
    upstream.push({ content: 'Logged answer.', usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const before = lines.length;
    const answer = await fetch(`${loggedUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'a very private prompt' }] }),
    });
    expect(answer.status).toBe(200);
    const missing = await fetch(`${loggedUrl}/v1/vector_stores/vs_nope/files`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    expect(missing.status).toBe(404);
    await new Promise((resolve) => setImmediate(resolve));
    const written = lines.slice(before);
    const requestLines = written.filter((line) => line.msg === 'request');
    expect(requestLines).toHaveLength(2);
    const [chat, notFound] = requestLines as [Record<string, unknown>, Record<string, unknown>];
    expect(chat).toMatchObject({
      request_id: answer.headers.get('x-request-id'),
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      account_id: expect.stringMatching(/^acct_/),
      key_id: expect.stringMatching(/^key_/),
      level: 30,
    });
    expect(typeof chat.duration_ms).toBe('number');
    expect(notFound).toMatchObject({ request_id: missing.headers.get('x-request-id'), route: '/v1/vector_stores/:id/files', status: 404 });
    const text = JSON.stringify(written);
    expect(text).not.toContain(server.apiKey);
    expect(text).not.toContain('sk-upstream-secret');
    expect(text).not.toContain('a very private prompt');
    // fastify's own two lines per request ("incoming request", "request completed") are gone.
    expect(written.some((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toBe(false);
  });

  it('a stream is logged once it ends, with its status', async () => {
    upstream.push({ content: 'streamed words', usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const before = lines.length;
    const answer = await fetch(`${loggedUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'go' }], stream: true }),
    });
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(await answer.text()).toContain('[DONE]');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = lines.slice(before).find((entry) => entry.msg === 'request');
    expect(line).toMatchObject({ request_id: answer.headers.get('x-request-id'), route: '/v1/chat/completions', status: 200 });
  });
});
