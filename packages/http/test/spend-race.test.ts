import type { ApiKey, ApiKeyWithValue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(() => ({
    content: 'a b c d',
    usage: { prompt_tokens: 100, completion_tokens: 20 },
    delayMs: 5,
  }));
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.00001 } }),
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

describe('budgets hold under races', () => {
  it('100 concurrent streaming calls never spend more than a key budget and a balance that cover 10 holds', async () => {
    const request = {
      model: 'fake/fake-model',
      messages: [{ role: 'user' as const, content: 'hi' }],
      max_tokens: 1000,
      stream: true as const,
    };
    // One hold: the request's bytes at 1 micro-unit + 1000 output tokens at 10 = about 0.01004; 10 of them:
    const budget = 0.1005;
    const account = await server.newAccount(budget);
    const key = await json<ApiKeyWithValue>(
      await server.request('/v1/account/keys', { method: 'POST', apiKey: account.apiKey, json: { max_budget: budget } }),
    );
    const client = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, async () => {
        try {
          const stream = await client.chat.completions.create(request);
          for await (const _chunk of stream);
          return 'ok';
        } catch (error) {
          return (error as { code?: string }).code ?? String(error);
        }
      }),
    );
    const ok = outcomes.filter((outcome) => outcome === 'ok').length;
    expect(outcomes.filter((outcome) => outcome !== 'ok').every((outcome) => outcome === 'insufficient_quota')).toBe(true);
    expect(ok).toBeGreaterThanOrEqual(10);
    // Each call cost exactly 100 × 1 + 20 × 10 = 300 micro-units; nothing is left held.
    const balance = (await json<AccountBody>(await server.request('/v1/account', { apiKey: account.apiKey }))).balance;
    expect(balance).toBeCloseTo(budget - ok * 0.0003, 9);
    expect(balance).toBeGreaterThanOrEqual(0);
    expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(balance, 9);
    const after = await json<ApiKey>(await server.request(`/v1/account/keys/${key.id}`, { apiKey: account.apiKey }));
    expect(after.spend).toBeCloseTo(ok * 0.0003, 9);
    expect(after.spend).toBeLessThanOrEqual(budget);
  });
});
