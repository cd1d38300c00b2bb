import type { ApiKeyWithValue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
// The rate-limit windows' clock: shifted so a test can start 1.5 s before a minute ends.
let offset = 0;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(() => ({ content: 'ok', usage: { prompt_tokens: 100, completion_tokens: 20 } }));
  server = await startFathom({
    env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
    clock: () => Date.now() + offset,
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

async function newKey(apiKey: string, body: Record<string, unknown>): Promise<ApiKeyWithValue> {
  return json<ApiKeyWithValue>(await server.request('/v1/account/keys', { method: 'POST', apiKey, json: body }));
}

/** Moves the windows' clock to `msBefore` ms before the end of a minute. */
function nearMinuteEnd(msBefore: number) {
  const now = Date.now();
  offset = 60_000 - (now % 60_000) - msBefore;
}

const hi = { model: 'fake/fake-model', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('rate limits per key', () => {
  it('answers x-ratelimit-* headers on success and 429 rate_limit_exceeded with retry-after past rpm_limit', async () => {
    nearMinuteEnd(30_000);
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { rpm_limit: 2, tpm_limit: 1000 });
    const client = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    const first = await client.chat.completions.create(hi).withResponse();
    expect(first.response.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$/);
    expect(first.response.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
    expect(first.response.headers.get('x-ratelimit-remaining-tokens')).toBe('1000');
    const second = await client.chat.completions.create(hi).withResponse();
    expect(second.response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // The first call's 120 tokens were counted.
    expect(second.response.headers.get('x-ratelimit-remaining-tokens')).toBe('880');
    const error = await client.chat.completions.create(hi).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited.code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(upstream.requests).toHaveLength(2);
  });

  it('refuses once the window has used tpm_limit tokens', async () => {
    nearMinuteEnd(30_000);
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { tpm_limit: 100 });
    const client = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    await client.chat.completions.create(hi);
    await expect(client.chat.completions.create(hi)).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('openai-node retries a 429 after retry-after and succeeds in the next window', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { rpm_limit: 1 });
    nearMinuteEnd(3000);
    await new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 }).models.list();
    const retrying = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 2 });
    const started = Date.now();
    const answer = await retrying.models.list().withResponse();
    expect(answer.response.status).toBe(200);
    // It waited for the window to end rather than failing.
    expect(Date.now() - started).toBeGreaterThan(200);
  });
});
