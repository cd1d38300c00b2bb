import type { ApiKey, ApiKeyWithValue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, type LedgerBody, startFathom, type TestFathom } from './harness';

/*
 * Work that runs after its request (a background response, an assistant run taken over by another
 * process) is charged to the API key that started it: its budget, its tokens per minute. These nodes start
 * their workers only after the work is queued, so it runs outside any request, as on another process.
 */

// Each turn reports 100 prompt and 20 completion tokens: 100 × 1 + 20 × 2 = 140 micro-units.
const TURN = 0.00014;
const USAGE = { prompt_tokens: 100, completion_tokens: 20 };

let upstream: FakeUpstream;
let slowNext = false;

const env = () => ({
  FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
  FATHOM_MODEL_PRICES: JSON.stringify({ 'fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
  FATHOM_LEASE_SECONDS: '1',
});

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(() => {
    const delayMs = slowNext ? 3000 : 0;
    slowNext = false;
    return { content: 'Done in the background.', usage: USAGE, delayMs };
  });
});

afterAll(async () => {
  await upstream?.close();
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function newKey(node: TestFathom, apiKey: string, body: Record<string, unknown>): Promise<ApiKeyWithValue> {
  const response = await node.request('/v1/account/keys', { method: 'POST', apiKey, json: body });
  expect(response.status).toBe(200);
  return json<ApiKeyWithValue>(response);
}

async function keySpend(node: TestFathom, apiKey: string, keyId: string): Promise<number> {
  return (await json<ApiKey>(await node.request(`/v1/account/keys/${keyId}`, { apiKey }))).spend;
}

async function balance(node: TestFathom, apiKey: string): Promise<number> {
  return (await json<AccountBody>(await node.request('/v1/account', { apiKey }))).balance;
}

async function charges(node: TestFathom, apiKey: string) {
  const ledger = (await json<LedgerBody>(await node.request('/v1/account/ledger?limit=100', { apiKey }))).data;
  return ledger.filter((entry) => entry.kind === 'charge');
}

// The rate-limit windows' clock: moved to the start of a minute by the test that reads a window.
let offset = 0;

/** Puts the windows' clock 50 ms into a fresh minute, so the run and the check below share one window. */
function earlyInAMinute(): void {
  const now = Date.now() + offset;
  offset += 60_000 - (now % 60_000) + 50;
}

const sdk = (node: TestFathom, apiKey: string) => new OpenAI({ apiKey, baseURL: node.baseURL, maxRetries: 0 });

describe('background work is charged to the key that started it', () => {
  let node: TestFathom;

  beforeAll(async () => {
    node = await startFathom({ env: env(), start: false, clock: () => Date.now() + offset });
  });

  afterAll(async () => {
    await node?.close({ keepData: false });
  });

  it("a background response run by the worker draws on its key's budget and tokens per minute", async () => {
    // Key windows are whole clock minutes: start early in one, so the run and the check below share it.
    earlyInAMinute();
    const account = await node.newAccount(10);
    const key = await newKey(node, account.apiKey, { name: 'batch-job', max_budget: 1, tpm_limit: 10_000 });
    const created = await sdk(node, key.value).responses.create({ model: 'fake/fake-model', input: 'Later.', background: true });
    // A key that cannot hold one call: its background response is refused, not run on the account's money.
    const poor = await newKey(node, account.apiKey, { name: 'poor', max_budget: 0.0001 });
    const refused = await sdk(node, poor.value).responses.create({ model: 'fake/fake-model', input: 'Later.', background: true });
    node.fathom.start();

    await until(async () => (await account.client.responses.retrieve(created.id)).status === 'completed');
    expect(await keySpend(node, account.apiKey, key.id)).toBeCloseTo(TURN, 9);
    const charged = await charges(node, account.apiKey);
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ key_id: key.id, model: 'fake/fake-model' });
    // The run's 120 tokens count in the key's minute window (the next request's headers show them).
    const models = await node.request('/v1/models', { apiKey: key.value });
    expect(models.headers.get('x-ratelimit-remaining-tokens')).toBe('9880');

    await until(async () => (await account.client.responses.retrieve(refused.id)).status !== 'queued');
    await until(async () => (await account.client.responses.retrieve(refused.id)).status !== 'in_progress');
    const failed = await account.client.responses.retrieve(refused.id);
    expect(failed.status).toBe('failed');
    // The contract's code for a 429 (as OpenAI's Responses have no `insufficient_quota`); the message says why.
    expect(failed.error).toMatchObject({
      code: 'rate_limit_exceeded',
      message: expect.stringMatching(/exceeded your current quota.*API key's budget/),
    });
    expect(await keySpend(node, account.apiKey, poor.id)).toBe(0);
    expect(await balance(node, account.apiKey)).toBeCloseTo(10 - TURN, 9);
  }, 90_000);

  it('an assistant run taken over from a stopped process is charged to the key that created it', async () => {
    const account = await node.newAccount(10);
    const key = await newKey(node, account.apiKey, { name: 'assistant', max_budget: 1 });
    const client = sdk(node, key.value);
    const assistant = await client.beta.assistants.create({ model: 'fake/fake-model', name: 'helper' });
    slowNext = true;
    const run = await client.beta.threads.createAndRun({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'Hello' }] },
    });
    // As a killed process leaves it: leased to an owner that never renews, soon expired. This process
    // loses the run at its next heartbeat; the worker takes it over outside any request.
    await node.fathom.database.run("UPDATE runs SET lease_owner = 'gone|1|dead', lease_until = ? WHERE id = ?", [Date.now() + 200, run.id]);
    await until(async () => (await account.client.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id })).status === 'completed');
    const spent = 10 - (await balance(node, account.apiKey));
    expect(spent).toBeGreaterThanOrEqual(TURN - 1e-9);
    expect(await keySpend(node, account.apiKey, key.id)).toBeCloseTo(spent, 9);
    const charged = await charges(node, account.apiKey);
    expect(charged.length).toBeGreaterThan(0);
    for (const entry of charged) expect(entry.key_id).toBe(key.id);
  });
});
