import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFathom, type TestFathom } from './harness';

interface LatencyBody {
  object: 'list';
  data: Array<{ date: string; model: string; requests: number; p50_ms: number; p95_ms: number }>;
}

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  // `slow-model` answers after 200 ms (a stream: 200 ms before each chunk), `fast-model` at once; `broken-model` fails.
  upstream = await createFakeOpenAIUpstream((request) =>
    request.model === 'broken-model'
      ? { error: { status: 500 } }
      : { content: 'one two', delayMs: request.model === 'slow-model' ? 200 : 0, usage: { prompt_tokens: 5, completion_tokens: 2 } },
  );
  server = await startFathom({
    env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, maxRetries: 0 } }) },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

describe('GET /v1/usage/latency', () => {
  it("answers the p50 and p95 of the account's answered model calls per day and model, and only the account's", async () => {
    const account = await server.newAccount();
    const client = new OpenAI({ apiKey: account.apiKey, baseURL: server.baseURL, maxRetries: 0 });
    for (let i = 0; i < 3; i++)
      await client.chat.completions.create({ model: 'fake/slow-model', messages: [{ role: 'user', content: 'hi' }] });
    const stream = await client.chat.completions.create({
      model: 'fake/slow-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _chunk of stream);
    for (let i = 0; i < 4; i++)
      await client.chat.completions.create({ model: 'fake/fast-model', messages: [{ role: 'user', content: 'hi' }] });
    await expect(
      client.chat.completions.create({ model: 'fake/broken-model', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();

    const response = await server.request('/v1/usage/latency', { apiKey: account.apiKey });
    expect(response.status).toBe(200);
    const body = await json<LatencyBody>(response);
    const today = new Date().toISOString().slice(0, 10);
    expect(body.object).toBe('list');
    // The failed call is not a latency: only answered calls are measured.
    expect(body.data.map(({ date, model, requests }) => ({ date, model, requests }))).toEqual([
      { date: today, model: 'fake/fast-model', requests: 4 },
      { date: today, model: 'fake/slow-model', requests: 4 },
    ]);
    const [fast, slow] = body.data;
    // 200 ms upstream wait, within the 4.4% bucket width; the stream waited 200 ms before each of its chunks.
    expect(slow!.p50_ms).toBeGreaterThanOrEqual(190);
    expect(slow!.p95_ms).toBeGreaterThan(slow!.p50_ms);
    expect(fast!.p50_ms).toBeLessThan(slow!.p50_ms / 2);

    const filtered = await json<LatencyBody>(
      await server.request(`/v1/usage/latency?model=fake/slow-model&start_date=${today}&end_date=${today}`, { apiKey: account.apiKey }),
    );
    expect(filtered.data.map((row) => row.model)).toEqual(['fake/slow-model']);
    expect(
      (await json<LatencyBody>(await server.request('/v1/usage/latency?end_date=2000-01-01', { apiKey: account.apiKey }))).data,
    ).toEqual([]);
    const other = await server.newAccount();
    expect((await json<LatencyBody>(await server.request('/v1/usage/latency', { apiKey: other.apiKey }))).data).toEqual([]);

    const bad = await server.request('/v1/usage/latency?start_date=yesterday', { apiKey: account.apiKey });
    expect(bad.status).toBe(400);
    expect((await json<{ error: { param: string } }>(bad)).error.param).toContain('start_date');
  });
});
