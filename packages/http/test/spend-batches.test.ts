import type { ApiKey, ApiKeyWithValue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, type LedgerBody, startFathom, type TestFathom } from './harness';

/*
 * A batch is charged as OpenAI bills one: each line at the model's batch price, out of one hold taken when
 * the batch starts, sized to what its lines can cost; each finished line is charged once, and what is left
 * is released when the batch ends (completed, cancelled, failed).
 */

// Each answer reports 100 prompt and 20 completion tokens.
const USAGE = { prompt_tokens: 100, completion_tokens: 20 };
// At the batch prices (0.4 and 0.8 micro-units per token): 100 × 0.4 + 20 × 0.8 = 56 micro-units a line.
const BATCH_LINE = 0.000056;
// Without batch prices, half the normal prices (1 and 2): 100 × 0.5 + 20 × 1 = 70 micro-units a line.
const HALF_PRICE_LINE = 0.00007;

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream((request) => {
    const prompt = String(request.messages?.at(-1)?.content ?? '');
    return { content: `echo ${prompt}`, usage: USAGE, delayMs: prompt.startsWith('slow') ? 200 : 0 };
  });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_MODEL_PRICES: JSON.stringify({
        'fake/fake-model': {
          input_cost_per_token: 0.000001,
          output_cost_per_token: 0.000002,
          input_cost_per_token_batches: 0.0000004,
          output_cost_per_token_batches: 0.0000008,
        },
        'fake/half-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 },
      }),
      FATHOM_BATCH_CONCURRENCY: '2',
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

const chatLine = (customId: string, prompt: string, model = 'fake/fake-model', maxTokens: number | null = 50) =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model, messages: [{ role: 'user', content: prompt }], ...(maxTokens === null ? {} : { max_tokens: maxTokens }) },
  });

async function startBatch(client: OpenAI, lines: string[]): Promise<OpenAI.Batch> {
  const file = await client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'requests.jsonl'), purpose: 'batch' });
  return client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
}

async function waitFor(client: OpenAI, id: string, done: (batch: OpenAI.Batch) => boolean, timeoutMs = 30_000): Promise<OpenAI.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const finished = (batch: OpenAI.Batch) => ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status);

async function balanceOf(apiKey: string): Promise<number> {
  return (await json<AccountBody>(await server.request('/v1/account', { apiKey }))).balance;
}

async function ledgerOf(apiKey: string) {
  return (await json<LedgerBody>(await server.request('/v1/account/ledger?limit=100', { apiKey }))).data;
}

/** The ledger sums to the balance, and exactly one hold was taken and released for the batch. */
async function expectOneHoldReleased(account: { id: string; apiKey: string }, batchId: string) {
  expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(await balanceOf(account.apiKey), 9);
  const rows = (await ledgerOf(account.apiKey)).filter((entry) => entry.ref === batchId);
  expect(rows.filter((entry) => entry.kind === 'reserve')).toHaveLength(1);
  expect(rows.filter((entry) => entry.kind === 'release')).toHaveLength(1);
  // What is released is what was held less what the lines were charged.
  const charged = (await ledgerOf(account.apiKey))
    .filter((entry) => entry.kind === 'charge' && entry.ref?.startsWith(`${batchId}/`))
    .reduce((sum, entry) => sum - entry.amount, 0);
  const held = -rows.find((entry) => entry.kind === 'reserve')!.amount;
  expect(rows.find((entry) => entry.kind === 'release')!.amount).toBeCloseTo(held - charged, 9);
}

describe('batches are charged at the batch price out of one hold', () => {
  it('charges each line at the batch price to the key that created the batch, once', async () => {
    const account = await server.newAccount(10);
    const created = await server.request('/v1/account/keys', {
      method: 'POST',
      apiKey: account.apiKey,
      json: { name: 'batch', max_budget: 1 },
    });
    const key = await json<ApiKeyWithValue>(created);
    const client = new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    const calls = upstream.requests.length;
    const batch = await startBatch(client, [chatLine('a', 'one'), chatLine('b', 'two'), chatLine('c', 'three')]);
    const done = await waitFor(client, batch.id, finished);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 3, completed: 3, failed: 0 });
    expect(upstream.requests.length - calls).toBe(3);

    expect(await balanceOf(account.apiKey)).toBeCloseTo(10 - 3 * BATCH_LINE, 9);
    const charges = (await ledgerOf(account.apiKey)).filter((entry) => entry.kind === 'charge');
    expect(charges.map((entry) => entry.ref).sort()).toEqual([`${batch.id}/a`, `${batch.id}/b`, `${batch.id}/c`]);
    for (const entry of charges) expect(entry).toMatchObject({ amount: -BATCH_LINE, key_id: key.id, model: 'fake/fake-model' });
    await expectOneHoldReleased(account, batch.id);
    // The key's budget was drawn on exactly what the lines cost (the rest of the hold given back).
    const after = await json<ApiKey>(await server.request(`/v1/account/keys/${key.id}`, { apiKey: account.apiKey }));
    expect(after.spend).toBeCloseTo(3 * BATCH_LINE, 9);
  });

  it('prices a line at half the normal price when the price file has no batch price', async () => {
    const account = await server.newAccount(10);
    const batch = await startBatch(account.client, [chatLine('a', 'one', 'fake/half-model'), chatLine('b', 'two', 'fake/half-model')]);
    expect((await waitFor(account.client, batch.id, finished)).status).toBe('completed');
    expect(await balanceOf(account.apiKey)).toBeCloseTo(10 - 2 * HALF_PRICE_LINE, 9);
    await expectOneHoldReleased(account, batch.id);
  });

  it('fails a batch whose hold the balance cannot cover, with a clear error and nothing sent or charged', async () => {
    // Lines without max_tokens are held at 4096 output tokens each: 2 × (bytes + 4096 × 0.8) micro-units > 0.005.
    const account = await server.newAccount(0.005);
    const calls = upstream.requests.length;
    const batch = await startBatch(account.client, [
      chatLine('a', 'one', 'fake/fake-model', null),
      chatLine('b', 'two', 'fake/fake-model', null),
    ]);
    const done = await waitFor(account.client, batch.id, finished);
    expect(done.status).toBe('failed');
    expect(done.errors?.data).toEqual([
      expect.objectContaining({
        code: 'insufficient_quota',
        message: expect.stringMatching(/exceeded your current quota.*balance is 0\.005/),
      }),
    ]);
    expect(upstream.requests.length).toBe(calls);
    expect(await balanceOf(account.apiKey)).toBe(0.005);
    expect((await ledgerOf(account.apiKey)).filter((entry) => entry.ref === batch.id)).toHaveLength(0);
  });

  it('a cancelled batch releases what is left of its hold once; the finished lines stay charged', async () => {
    const account = await server.newAccount(10);
    const lines = Array.from({ length: 12 }, (_, index) => chatLine(`slow-${index}`, `slow ${index}`));
    const batch = await startBatch(account.client, lines);
    await waitFor(account.client, batch.id, (current) => current.request_counts!.completed >= 1);
    await account.client.batches.cancel(batch.id);
    const done = await waitFor(account.client, batch.id, finished);
    expect(done.status).toBe('cancelled');
    const completed = done.request_counts!.completed;
    expect(completed).toBeGreaterThanOrEqual(1);
    expect(completed).toBeLessThan(12);
    expect(await balanceOf(account.apiKey)).toBeCloseTo(10 - completed * BATCH_LINE, 9);
    await expectOneHoldReleased(account, batch.id);
  });
});
