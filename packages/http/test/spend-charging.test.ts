import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AccountBody, json, type LedgerBody, startFathom, type TestFathom } from './harness';

// Prices in LiteLLM's format: 1 and 2 micro-units a token, and a price of 0.15 micro-units that rounds.
const PRICES = {
  'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000, litellm_provider: 'x' },
  'fake-embed': { input_cost_per_token: 0.000001, output_cost_per_token: 0 },
  'fake-model-mini': { input_cost_per_token: 1.5e-7, output_cost_per_token: 6e-7 },
  // Cached input at a quarter of a micro-unit a token.
  'fake/cached-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, cache_read_input_token_cost: 2.5e-7 },
  sample_spec: { max_tokens: 'set to max_output_tokens if provider specifies it' },
};

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream((request) =>
    request.model === 'cached-model'
      ? { content: 'from the cache', usage: { prompt_tokens: 1000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 800 } } }
      : { content: 'one two three', usage: { prompt_tokens: 100, completion_tokens: 20 } },
  );
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-upstream' } }),
      FATHOM_MODEL_PRICES: JSON.stringify(PRICES),
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
});

async function balanceOf(apiKey: string): Promise<number> {
  return (await json<AccountBody>(await server.request('/v1/account', { apiKey }))).balance;
}

async function ledgerOf(apiKey: string) {
  return (await json<LedgerBody>(await server.request('/v1/account/ledger?limit=100', { apiKey }))).data;
}

describe('model calls are charged with a hold', () => {
  it('charges cached prompt tokens at cache_read_input_token_cost, streamed or not, and answers them in usage', async () => {
    const account = await server.newAccount(1);
    const request = { model: 'fake/cached-model', messages: [{ role: 'user' as const, content: 'hi' }] };
    const completion = await account.client.chat.completions.create(request);
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(800);
    // 200 × 1 + 800 × 0.25 + 100 × 2 micro-units, not 1000 × 1 + 100 × 2.
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.0006, 9);
    const stream = await account.client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    for await (const _chunk of stream);
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.0012, 9);
  });

  it('charges a chat completion exactly what the upstream usage says, with ledger rows naming the request and the model', async () => {
    const account = await server.newAccount(1);
    const completion = await account.client.chat.completions.create(
      { model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-request-id': 'req_client_1' } },
    );
    expect(completion.usage?.prompt_tokens).toBe(100);
    // 100 × 1 + 20 × 2 micro-units.
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.00014, 9);
    const ledger = await ledgerOf(account.apiKey);
    const moves = ledger.filter((entry) => entry.request_id === 'req_client_1');
    expect(moves.map((entry) => entry.kind).sort()).toEqual(['charge', 'release', 'reserve']);
    expect(moves.every((entry) => entry.model === 'fake/fake-model')).toBe(true);
    const hold = -moves.find((entry) => entry.kind === 'reserve')!.amount;
    // The hold covered the most the call could cost: its input bytes + max_output_tokens (1000) at the price.
    expect(hold).toBeGreaterThanOrEqual(0.002);
    expect(moves.find((entry) => entry.kind === 'release')!.amount).toBe(hold);
    expect(moves.find((entry) => entry.kind === 'charge')!.amount).toBeCloseTo(-0.00014, 9);
    expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(await balanceOf(account.apiKey), 9);
  });

  it('charges a streamed completion from the usage Fathom asks the upstream for', async () => {
    const account = await server.newAccount(1);
    const stream = await account.client.chat.completions.create({
      model: 'fake/fake-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _chunk of stream);
    expect(upstream.requests.at(-1).stream_options).toEqual({ include_usage: true });
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.00014, 9);
  });

  it('uses max_tokens for the hold when the request sets it', async () => {
    const account = await server.newAccount(1);
    await account.client.chat.completions.create(
      { model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 },
      { headers: { 'x-request-id': 'req_small_hold' } },
    );
    const reserve = (await ledgerOf(account.apiKey)).find((entry) => entry.request_id === 'req_small_hold' && entry.kind === 'reserve')!;
    expect(-reserve.amount).toBeLessThan(0.001);
    expect(-reserve.amount).toBeGreaterThanOrEqual(0.0001);
  });

  it('rounds each call up to a whole micro-unit: 0.15 micro-units a token never rounds to free', async () => {
    const account = await server.newAccount(1);
    upstream.requests.length = 0;
    await account.client.chat.completions.create({ model: 'fake/fake-model-mini', messages: [{ role: 'user', content: 'hi' }] });
    // 100 × 0.15 + 20 × 0.6 = 27 micro-units exactly.
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.000027, 9);
  });

  it('charges embeddings of a priced model', async () => {
    const account = await server.newAccount(1);
    const answer = await account.client.embeddings.create({ model: 'fake/fake-embed', input: ['a b c', 'd e'] });
    expect(answer.usage.prompt_tokens).toBe(5);
    expect(await balanceOf(account.apiKey)).toBeCloseTo(1 - 0.000005, 9);
  });

  it('refuses with 429 insufficient_quota before any upstream call when the balance cannot cover the hold', async () => {
    const account = await server.newAccount(0.0001);
    const error = await account.client.chat.completions
      .create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const refusal = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(refusal.status).toBe(429);
    expect(refusal.code).toBe('insufficient_quota');
    expect(refusal.type).toBe('insufficient_quota');
    expect(refusal.headers?.get('x-should-retry')).toBe('false');
    expect(upstream.requests).toHaveLength(0);
    expect(await balanceOf(account.apiKey)).toBe(0.0001);
    expect(await ledgerOf(account.apiKey)).toHaveLength(1);
  });

  it('does not retry insufficient_quota even with retries on (x-should-retry: false)', async () => {
    const account = await server.newAccount(0.0001);
    const client = new OpenAI({ apiKey: account.apiKey, baseURL: server.baseURL, maxRetries: 3 });
    const started = Date.now();
    await expect(client.chat.completions.create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      /quota/,
    );
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('charges nothing when the upstream fails, and releases the hold', async () => {
    const failing = await createFakeOpenAIUpstream([{ error: { status: 500, message: 'boom' } }]);
    const local = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: failing.baseUrl } }),
        FATHOM_MODEL_PRICES: JSON.stringify(PRICES),
      },
    });
    try {
      const account = await local.newAccount(1);
      await expect(
        account.client.chat.completions.create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toThrow();
      expect((await json<AccountBody>(await local.request('/v1/account', { apiKey: account.apiKey }))).balance).toBe(1);
    } finally {
      await local.close();
      await failing.close();
    }
  });

  it('shows the price it charges on GET /v1/models/{id}', async () => {
    const model = (await server.client.models.retrieve('fake/fake-model')) as unknown as { pricing: Record<string, number> };
    expect(model.pricing).toEqual({ input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000 });
  });
});

describe('GET /v1/usage grouped', () => {
  it('groups the calls by day × model, by key and by API, with their cost', async () => {
    const account = await server.newAccount(1);
    const created = await server.request('/v1/account/keys', { method: 'POST', apiKey: account.apiKey, json: { name: 'ci' } });
    const key = (await json<{ id: string; value: string }>(created)) as { id: string; value: string };
    const byKey = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    await byKey.chat.completions.create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] });
    await account.client.chat.completions.create({ model: 'fake/fake-model-mini', messages: [{ role: 'user', content: 'hi' }] });
    await account.client.embeddings.create({ model: 'fake/fake-embed', input: 'a b' });
    type Groups = { group_by: string[]; data: Array<Record<string, unknown> & { cost: number; requests: number; total_tokens: number }> };
    const get = async (query: string) => json<Groups>(await server.request(`/v1/usage?${query}`, { apiKey: account.apiKey }));
    const dayModel = await get('group_by=day,model');
    expect(dayModel.group_by).toEqual(['day', 'model']);
    const today = new Date().toISOString().slice(0, 10);
    expect(dayModel.data).toEqual([
      { day: today, model: 'fake/fake-embed', requests: 1, prompt_tokens: 2, completion_tokens: 0, total_tokens: 2, cost: 0.000002 },
      { day: today, model: 'fake/fake-model', requests: 1, prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cost: 0.00014 },
      {
        day: today,
        model: 'fake/fake-model-mini',
        requests: 1,
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        cost: 0.000027,
      },
    ]);
    const keys = await get('group_by=key');
    expect(keys.data.find((group) => group.key_id === key.id)).toMatchObject({ requests: 1, cost: 0.00014 });
    const apis = await get('group_by=api');
    expect(apis.data.map((group) => group.api)).toEqual(['embeddings', 'models']);
    const none = await get(`group_by=model&start_time=${Math.floor(Date.now() / 1000) + 3600}`);
    expect(none.data).toEqual([]);
    // The daily token counts stay the answer without group_by.
    const plain = await json<{ data: Array<{ date: string }> }>(await server.request('/v1/usage', { apiKey: account.apiKey }));
    expect(plain.data[0]?.date).toBe(today);
  });
});
