import { type ApiKey, type ApiKeyWithValue, InsufficientQuotaError, nowSeconds } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTables } from '../src/route-tables';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(() => ({ content: 'ok', usage: { prompt_tokens: 100, completion_tokens: 20 } }));
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_MODEL_ALIASES: JSON.stringify({ 'mini-alias': 'fake/fake-model-mini' }),
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

async function createKey(apiKey: string, body: Record<string, unknown>): Promise<Response> {
  return server.request('/v1/account/keys', { method: 'POST', apiKey, json: body });
}

async function newKey(apiKey: string, body: Record<string, unknown>): Promise<ApiKeyWithValue> {
  const response = await createKey(apiKey, body);
  expect(response.status).toBe(200);
  return json<ApiKeyWithValue>(response);
}

const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: server.baseURL, maxRetries: 0 });
const hi = { model: 'fake/fake-model', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('keys are objects', () => {
  it('creates a key whose secret is shown once, lists it redacted with its limits', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { name: 'ci', rpm_limit: 60, max_budget: 5, budget_duration: '7d' });
    expect(key).toMatchObject({ object: 'api_key', name: 'ci', rpm_limit: 60, max_budget: 5, budget_duration: '7d', spend: 0 });
    expect(key.value).toMatch(/^fth_/);
    expect(key.redacted_value).toBe(`fth_…${key.value.slice(-4)}`);
    expect(key.budget_reset_at).toBeGreaterThan(nowSeconds() + 7 * 86_400 - 60);
    const listed = await json<{ data: ApiKey[] }>(await server.request('/v1/account/keys', { apiKey: account.apiKey }));
    expect(listed.data.map((entry) => entry.id)).toContain(key.id);
    expect(JSON.stringify(listed)).not.toContain(key.value);
  });

  it('a restricted key gets 200 on read and 403 permission_denied on write, naming family and level', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { permissions: { vector_stores: 'read' } });
    const restricted = client(key.value);
    await expect(restricted.vectorStores.list()).resolves.toBeDefined();
    const error = await restricted.vectorStores.create({ name: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const denied = error as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(denied.status).toBe(403);
    expect(denied.code).toBe('permission_denied');
    expect(denied.message).toContain("'write' permission on 'vector_stores'");
    // A family not listed is none.
    await expect(restricted.files.list()).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    await expect(restricted.chat.completions.create(hi)).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it('an expired key answers 401', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { expires_at: nowSeconds() + 1000 });
    expect((await server.request('/v1/account', { apiKey: key.value })).status).toBe(200);
    // The clock is injected: at its expiry the key no longer authenticates.
    expect(await server.fathom.accounts.authenticateKey(key.value, nowSeconds() + 1000)).toBeNull();
    const past = await newKey(account.apiKey, { expires_at: nowSeconds() + 1 });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const response = await server.request('/v1/account', { apiKey: past.value });
    expect(response.status).toBe(401);
    expect((await json<ErrorBody>(response)).error.code).toBe('invalid_api_key');
  });

  it('rotation: the old secret works for the grace period, then 401; with no grace it stops at once', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, {});
    const rotated = await json<ApiKeyWithValue>(
      await server.request(`/v1/account/keys/${key.id}/rotate`, {
        method: 'POST',
        apiKey: account.apiKey,
        json: { grace_period_seconds: 60 },
      }),
    );
    expect(rotated.id).toBe(key.id);
    expect(rotated.value).not.toBe(key.value);
    expect((await server.request('/v1/account', { apiKey: rotated.value })).status).toBe(200);
    expect((await server.request('/v1/account', { apiKey: key.value })).status).toBe(200);
    expect(await server.fathom.accounts.authenticateKey(key.value, nowSeconds() + 61)).toBeNull();
    const again = await json<ApiKeyWithValue>(
      await server.request(`/v1/account/keys/${key.id}/rotate`, { method: 'POST', apiKey: account.apiKey, json: {} }),
    );
    expect((await server.request('/v1/account', { apiKey: rotated.value })).status).toBe(401);
    expect((await server.request('/v1/account', { apiKey: key.value })).status).toBe(401);
    expect((await server.request('/v1/account', { apiKey: again.value })).status).toBe(200);
  });

  it('the model allow-list: exact ids, vendor globs and aliases resolved first; another model is 403 naming it', async () => {
    const account = await server.newAccount(10);
    const exact = client((await newKey(account.apiKey, { models: ['mini-alias'] })).value);
    await expect(exact.chat.completions.create({ ...hi, model: 'fake/fake-model-mini' })).resolves.toBeDefined();
    const error = await exact.chat.completions.create(hi).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as Error).message).toContain("'fake/fake-model'");
    const glob = client((await newKey(account.apiKey, { models: ['fake/*'] })).value);
    await expect(glob.chat.completions.create(hi)).resolves.toBeDefined();
    const other = client((await newKey(account.apiKey, { models: ['other/*'] })).value);
    await expect(other.embeddings.create({ model: 'fake/fake-model', input: 'x' })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
  });

  it("a key's budget refuses calls past it with 429 insufficient_quota, and shows its spend", async () => {
    const account = await server.newAccount(10);
    // A call holds a little more than 0.002 (its input bytes + 4096 output tokens at the price) and costs 0.00014.
    const key = await newKey(account.apiKey, { max_budget: 0.0085 });
    const limited = client(key.value);
    await limited.chat.completions.create(hi);
    const after = await json<ApiKey>(await server.request(`/v1/account/keys/${key.id}`, { apiKey: account.apiKey }));
    expect(after.spend).toBeCloseTo(0.00014, 9);
    const error = await limited.chat.completions.create({ ...hi, max_tokens: 5000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('insufficient_quota');
  });

  it('the budget window resets after its duration (clock injected)', async () => {
    const account = await server.newAccount(10);
    const key = await newKey(account.apiKey, { max_budget: 0.001, budget_duration: '1d' });
    const accounts = server.fathom.accounts;
    const hold = (ref: string, now: number) =>
      accounts.hold({ accountId: account.id, keyId: key.id, ref, micros: 800, requestId: ref, model: 'm' }, now);
    const now = nowSeconds();
    await hold('hold-a', now);
    await expect(hold('hold-b', now + 100)).rejects.toBeInstanceOf(InsufficientQuotaError);
    // A day later the window starts again: the spend is 0 and the next reset a day further.
    await hold('hold-c', key.budget_reset_at! + 1);
    const fresh = await accounts.keys.retrieve(account.id, key.id);
    expect(fresh.spend).toBeCloseTo(0.0008, 9);
    expect(fresh.budget_reset_at).toBe(key.budget_reset_at! + 86_400);
  });

  it('a key cannot create, rotate or revoke a key with more rights or a larger budget than itself', async () => {
    const account = await server.newAccount(10);
    const manager = await newKey(account.apiKey, { permissions: { keys: 'write', models: 'read' }, max_budget: 1 });
    const refused = async (body: Record<string, unknown>, param: string) => {
      const response = await createKey(manager.value, body);
      expect(response.status).toBe(403);
      expect((await json<ErrorBody>(response)).error.param).toBe(param);
    };
    await refused({}, 'permissions');
    await refused({ permissions: { models: 'write' }, max_budget: 1 }, 'permissions');
    await refused({ permissions: { models: 'read' } }, 'max_budget');
    await refused({ permissions: { models: 'read' }, max_budget: 2 }, 'max_budget');
    const child = await newKey(manager.value, { permissions: { models: 'read' }, max_budget: 0.5 });
    expect(child.permissions).toEqual({ models: 'read' });
    // The account's unrestricted key is more than the manager: it cannot rotate or revoke it.
    const full = await newKey(account.apiKey, {});
    expect((await server.request(`/v1/account/keys/${full.id}/rotate`, { method: 'POST', apiKey: manager.value, json: {} })).status).toBe(
      403,
    );
    expect((await server.request(`/v1/account/keys/${full.id}`, { method: 'DELETE', apiKey: manager.value })).status).toBe(403);
    expect((await server.request(`/v1/account/keys/${child.id}`, { method: 'DELETE', apiKey: manager.value })).status).toBe(200);
  });

  it("another account's key is 404, and the admin manages any account's keys", async () => {
    const a = await server.newAccount(10);
    const b = await server.newAccount(10);
    const key = await newKey(a.apiKey, {});
    expect((await server.request(`/v1/account/keys/${key.id}`, { apiKey: b.apiKey })).status).toBe(404);
    const admin = await server.request(`/v1/admin/accounts/${a.id}/keys`, { apiKey: server.adminKey });
    expect((await json<{ data: ApiKey[] }>(admin)).data.map((entry) => entry.id)).toContain(key.id);
    const updated = await server.request(`/v1/admin/accounts/${a.id}/keys/${key.id}`, {
      method: 'POST',
      apiKey: server.adminKey,
      json: { rpm_limit: 5 },
    });
    expect((await json<ApiKey>(updated)).rpm_limit).toBe(5);
  });

  it('every registered route belongs to a resource family', () => {
    const missing = routeTables('all')
      .filter((route) => route.family === undefined)
      .map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });
});
