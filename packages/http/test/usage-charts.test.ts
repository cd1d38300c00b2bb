import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFathom, type TestFathom } from './harness';

// What the console's key and error charts read: `GET /v1/usage?group_by=…key` naming its keys, and `GET /v1/usage/errors`.

interface Groups {
  group_by: string[];
  data: Array<{
    day?: string;
    key_id?: string | null;
    key_name?: string | null;
    key_redacted_value?: string | null;
    requests: number;
    prompt_tokens: number;
    completion_tokens: number;
    cost: number;
  }>;
}
interface Errors {
  object: 'list';
  data: Array<{ date: string; status: number; code: string | null; requests: number }>;
}

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  // `broken-model` fails upstream (500); the others answer with 100 + 20 tokens (`big-model`: 300 + 60).
  upstream = await createFakeOpenAIUpstream((request) =>
    request.model === 'broken-model'
      ? { error: { status: 500 } }
      : {
          content: 'ok',
          usage:
            request.model === 'big-model' ? { prompt_tokens: 300, completion_tokens: 60 } : { prompt_tokens: 100, completion_tokens: 20 },
        },
  );
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, maxRetries: 0 } }),
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/big-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

async function newKey(apiKey: string, params: Record<string, unknown>) {
  const response = await server.request('/v1/account/keys', { method: 'POST', apiKey, json: params });
  expect(response.status).toBe(200);
  return json<{ id: string; value: string; redacted_value: string }>(response);
}

const ask = (client: OpenAI, model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('GET /v1/usage grouped by key', () => {
  it("names each key (name and redacted value, never the secret), per day and over the range, the revoked one's by id only", async () => {
    const account = await server.newAccount(10);
    const ci = await newKey(account.apiKey, { name: 'ci-runner' });
    const batch = await newKey(account.apiKey, { name: 'nightly' });
    const gone = await newKey(account.apiKey, { name: 'old' });
    const client = (key: { value: string }) => new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await ask(client(ci), 'fake/fast-model');
    await ask(client(batch), 'fake/big-model');
    await ask(client(gone), 'fake/fast-model');
    expect((await server.request(`/v1/account/keys/${gone.id}`, { method: 'DELETE', apiKey: account.apiKey })).status).toBe(200);

    const get = async (query: string) => {
      const response = await server.request(`/v1/usage?${query}`, { apiKey: account.apiKey });
      const text = await response.text();
      for (const key of [ci, batch, gone]) expect(text).not.toContain(key.value);
      return JSON.parse(text) as Groups;
    };
    const top = await get('group_by=key');
    expect(top.group_by).toEqual(['key']);
    const byId = new Map(top.data.map((group) => [group.key_id, group]));
    expect(byId.get(ci.id)).toMatchObject({
      key_name: 'ci-runner',
      key_redacted_value: ci.redacted_value,
      requests: 3,
      prompt_tokens: 300,
      completion_tokens: 60,
      cost: 0,
    });
    expect(byId.get(batch.id)).toMatchObject({
      key_name: 'nightly',
      requests: 1,
      prompt_tokens: 300,
      completion_tokens: 60,
      cost: 0.00042,
    });
    expect(byId.get(gone.id)).toMatchObject({ key_name: null, key_redacted_value: null, requests: 1 });
    expect(batch.redacted_value).toMatch(/^fth_…\w{4}$/);

    const today = new Date().toISOString().slice(0, 10);
    const perDay = await get('group_by=day,key');
    expect(perDay.data.filter((group) => group.key_id === ci.id)).toEqual([
      {
        day: today,
        key_id: ci.id,
        key_name: 'ci-runner',
        key_redacted_value: ci.redacted_value,
        requests: 3,
        prompt_tokens: 300,
        completion_tokens: 60,
        total_tokens: 360,
        cost: 0,
      },
    ]);
    // Not grouped by key: no key fields.
    expect((await get('group_by=day')).data[0]).not.toHaveProperty('key_name');
    // Another account's usage names none of these keys.
    const other = await server.newAccount();
    expect((await json<Groups>(await server.request('/v1/usage?group_by=key', { apiKey: other.apiKey }))).data).toEqual([]);
  });
});

describe('GET /v1/usage/errors', () => {
  it("counts the account's requests answered with an error per day, status and code, and only the account's", async () => {
    const account = await server.newAccount();
    const reader = await newKey(account.apiKey, { name: 'reader', permissions: { usage: 'read' } });
    const client = new OpenAI({ apiKey: account.apiKey, baseURL: server.baseURL, maxRetries: 0 });
    // Two 400s (a bad parameter), a 404, a 403 from the restricted key, two 502s from the failing upstream, one success.
    for (let i = 0; i < 2; i++) {
      await expect(
        client.chat.completions.create({ model: 'fake/fast-model', messages: [{ role: 'user', content: 'hi' }], temperature: 9 }),
      ).rejects.toThrow();
    }
    await expect(client.files.retrieve('file-missing')).rejects.toThrow();
    expect((await server.request('/v1/files', { apiKey: reader.value })).status).toBe(403);
    for (let i = 0; i < 2; i++) await expect(ask(client, 'fake/broken-model')).rejects.toThrow();
    await ask(client, 'fake/fast-model');
    // A wrong key belongs to no account: counted for none.
    expect((await server.request('/v1/models', { apiKey: 'fth_wrong' })).status).toBe(401);

    const response = await server.request('/v1/usage/errors', { apiKey: account.apiKey });
    expect(response.status).toBe(200);
    const body = await json<Errors>(response);
    const today = new Date().toISOString().slice(0, 10);
    expect(body.data).toEqual([
      { date: today, status: 400, code: 'invalid_value', requests: 2 },
      { date: today, status: 403, code: 'permission_denied', requests: 1 },
      { date: today, status: 404, code: 'not_found', requests: 1 },
      { date: today, status: 502, code: 'upstream_error', requests: 2 },
    ]);

    expect((await json<Errors>(await server.request('/v1/usage/errors?end_date=2000-01-01', { apiKey: account.apiKey }))).data).toEqual([]);
    const other = await server.newAccount();
    expect((await json<Errors>(await server.request('/v1/usage/errors', { apiKey: other.apiKey }))).data).toEqual([]);
    const bad = await server.request('/v1/usage/errors?start_date=yesterday', { apiKey: other.apiKey });
    expect(bad.status).toBe(400);
    expect((await json<{ error: { param: string } }>(bad)).error.param).toContain('start_date');
  });
});
