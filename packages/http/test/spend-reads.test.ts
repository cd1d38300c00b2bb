import type { AccountsPage, ApiKey, ApiKeyWithValue, UsageGroupsPage } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountBody, LedgerBody } from './harness';
import { startFathom, type TestFathom } from './harness';

// On SQLite a call's write waits to share a commit with the calls answered after it (`SHARE_COMMIT_MS`);
// here it waits a minute, so only the flush every view of money does first can make a call visible to it.
// On PostgreSQL the capture is committed before the answer: the same assertions hold.
const PRICES = { 'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000 } };
// 100 input tokens at 1 micro-unit, 20 output tokens at 2.
const COST = 0.00014;
const hi = { model: 'fake/fake-model', messages: [{ role: 'user' as const, content: 'hi' }] };

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(() => ({ content: 'one two three', usage: { prompt_tokens: 100, completion_tokens: 20 } }));
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-upstream' } }),
      FATHOM_MODEL_PRICES: JSON.stringify(PRICES),
    },
    spendShareMs: 60_000,
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

/** A new account with 1 to spend, and an SDK client of a key of it with a budget (to show its spend). */
async function accountWithKey() {
  const account = await server.newAccount(1);
  const owner = new OpenAI({ baseURL: server.baseURL, apiKey: account.apiKey, maxRetries: 0 });
  const key = await owner.post<ApiKeyWithValue>('/account/keys', { body: { name: 'reads', max_budget: 1 } });
  return { account, owner, key, client: new OpenAI({ baseURL: server.baseURL, apiKey: key.value, maxRetries: 0 }) };
}

describe('every view of money sees the calls answered before it (SQLite: the queued writes are flushed first)', () => {
  it('the balance, the ledger, the key spend, the usage, the admin list and the ledger sum, each read right after an answer', async () => {
    const { account, owner, key, client } = await accountWithKey();

    const first = await client.chat.completions.create(hi, { headers: { 'x-request-id': 'req_reads_1' } });
    expect(first.usage?.prompt_tokens).toBe(100);
    expect((await owner.get<AccountBody>('/account')).balance).toBeCloseTo(1 - COST, 9);

    await client.chat.completions.create(hi, { headers: { 'x-request-id': 'req_reads_2' } });
    const ledger = await owner.get<LedgerBody>('/account/ledger', { query: { limit: 100 } });
    const charge = ledger.data.find((entry) => entry.request_id === 'req_reads_2' && entry.kind === 'charge');
    expect(charge?.amount).toBeCloseTo(-COST, 9);
    expect(charge?.model).toBe('fake/fake-model');

    await client.chat.completions.create(hi);
    expect((await owner.get<ApiKey>(`/account/keys/${key.id}`)).spend).toBeCloseTo(3 * COST, 9);

    await client.chat.completions.create(hi);
    const usage = await owner.get<UsageGroupsPage>('/usage', { query: { group_by: 'model' } });
    expect(usage.data).toEqual([expect.objectContaining({ model: 'fake/fake-model', requests: 4, prompt_tokens: 400 })]);
    expect(usage.data[0]!.cost).toBeCloseTo(4 * COST, 9);

    await client.chat.completions.create(hi);
    const admin = new OpenAI({ baseURL: server.baseURL, apiKey: server.adminKey, maxRetries: 0 });
    const accounts = await admin.get<AccountsPage>('/admin/accounts', { query: { limit: 100 } });
    expect(accounts.data.find((listed) => listed.id === account.id)?.balance).toBeCloseTo(1 - 5 * COST, 9);

    await client.chat.completions.create(hi);
    expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(1 - 6 * COST, 9);
    expect((await server.fathom.accounts.retrieve(account.id)).balance).toBeCloseTo(1 - 6 * COST, 9);
  });

  it('a streamed call too, and the key spend right after several calls made at once', async () => {
    const { owner, key, client } = await accountWithKey();
    const stream = await client.chat.completions.create({ ...hi, stream: true });
    for await (const _chunk of stream);
    expect((await owner.get<AccountBody>('/account')).balance).toBeCloseTo(1 - COST, 9);
    await Promise.all(Array.from({ length: 5 }, () => client.chat.completions.create(hi)));
    expect((await owner.get<ApiKey>(`/account/keys/${key.id}`)).spend).toBeCloseTo(6 * COST, 9);
  });
});

describe('closing writes what is queued', () => {
  it('a call answered just before the server closes is charged after a restart', async () => {
    const restarted = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-upstream' } }),
        FATHOM_MODEL_PRICES: JSON.stringify(PRICES),
      },
      spendShareMs: 60_000,
    });
    await restarted.client.chat.completions.create(hi);
    await restarted.close({ keepData: true });
    const again = await startFathom({ dataDir: restarted.dataDir, env: { FATHOM_MODEL_PRICES: JSON.stringify(PRICES) } });
    try {
      const account = await again.fathom.accounts.first();
      const balance = (await again.client.get<AccountBody>('/account')).balance;
      expect(await again.fathom.accounts.ledgerSum(account!.id)).toBeCloseTo(balance, 9);
      const ledger = await again.client.get<LedgerBody>('/account/ledger', { query: { limit: 100 } });
      expect(ledger.data.filter((entry) => entry.kind === 'charge').map((entry) => entry.amount)).toEqual([-COST]);
    } finally {
      await again.close({ keepData: false });
    }
  });
});
