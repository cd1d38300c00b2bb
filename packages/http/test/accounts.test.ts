import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountBody,
  type CreatedAccountBody,
  type CreatedKeyBody,
  type ErrorBody,
  json,
  type LedgerBody,
  startFathom,
  type TestFathom,
} from './harness';

describe('accounts, keys and the admin API', () => {
  let server: TestFathom;
  beforeAll(async () => {
    server = await startFathom();
  });
  afterAll(() => server.close({ keepData: false }));

  it('answers GET /v1/account for the bootstrap key with the default balance', async () => {
    const response = await server.request('/v1/account');
    expect(response.status).toBe(200);
    const body = await json<AccountBody>(response);
    expect(body).toMatchObject({ name: 'default', balance: 100 });
    expect(body.id).toMatch(/^acct_/);
  });

  it('refuses a missing or unknown key with 401 in the OpenAI error shape', async () => {
    const missing = await fetch(`${server.url}/v1/account`);
    expect(missing.status).toBe(401);
    expect((await json<ErrorBody>(missing)).error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const unknown = await server.request('/v1/account', { apiKey: 'fth_nope' });
    expect(unknown.status).toBe(401);
  });

  it('creates accounts, issues and revokes keys, and credits balances through the admin API', async () => {
    const created = await server.request('/v1/admin/accounts', {
      method: 'POST',
      apiKey: server.adminKey,
      json: { name: 'acme', balance: 5 },
    });
    expect(created.status).toBe(200);
    const account = await json<CreatedAccountBody>(created);
    expect(account).toMatchObject({ name: 'acme', balance: 5 });
    expect(account.api_key).toMatch(/^fth_/);

    const me = await json<AccountBody>(await server.request('/v1/account', { apiKey: account.api_key }));
    expect(me).toEqual({ id: account.id, name: 'acme', balance: 5 });

    const key = await json<CreatedKeyBody>(
      await server.request(`/v1/admin/accounts/${account.id}/keys`, { method: 'POST', apiKey: server.adminKey }),
    );
    expect(key.id).toMatch(/^key_/);
    expect((await server.request('/v1/account', { apiKey: key.api_key })).status).toBe(200);
    expect((await server.request(`/v1/admin/keys/${key.id}`, { method: 'DELETE', apiKey: server.adminKey })).status).toBe(200);
    expect((await server.request('/v1/account', { apiKey: key.api_key })).status).toBe(401);

    const credited = await server.request(`/v1/admin/accounts/${account.id}/credit`, {
      method: 'POST',
      apiKey: server.adminKey,
      json: { amount: 2.5 },
    });
    expect(await credited.json()).toEqual({ id: account.id, balance: 7.5 });
    const ledger = await json<LedgerBody>(await server.request('/v1/account/ledger', { apiKey: account.api_key }));
    expect(ledger.data.map((entry) => [entry.kind, entry.amount])).toEqual([
      ['credit', 2.5],
      ['credit', 5],
    ]);
  });

  it('refuses a credit or an initial balance that rounds to zero at the ledger precision, naming the field', async () => {
    const account = await json<CreatedAccountBody>(
      await server.request('/v1/admin/accounts', { method: 'POST', apiKey: server.adminKey, json: { name: 'tiny', balance: 1 } }),
    );
    for (const amount of [1e-9, 1e-12]) {
      const credit = await server.request(`/v1/admin/accounts/${account.id}/credit`, {
        method: 'POST',
        apiKey: server.adminKey,
        json: { amount },
      });
      expect(credit.status).toBe(400);
      expect((await json<ErrorBody>(credit)).error).toMatchObject({ type: 'invalid_request_error', param: 'amount' });
      const created = await server.request('/v1/admin/accounts', {
        method: 'POST',
        apiKey: server.adminKey,
        json: { name: 'dust', balance: amount },
      });
      expect(created.status).toBe(400);
      expect((await json<ErrorBody>(created)).error).toMatchObject({ param: 'balance' });
    }
    const ledger = await json<LedgerBody>(await server.request('/v1/account/ledger', { apiKey: account.api_key }));
    expect(ledger.data.map((entry) => entry.amount)).toEqual([1]);
  });

  it('names each missing or invalid field of an admin request', async () => {
    const response = await server.request('/v1/admin/accounts', { method: 'POST', apiKey: server.adminKey, json: { balance: 'x' } });
    expect(response.status).toBe(400);
    const { error } = await json<ErrorBody>(response);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain("'name'");
    expect(error.message).toContain("'balance'");
  });

  it('refuses by its schema a credit or a balance that is not a number in range, naming the field, and moves no money', async () => {
    const account = await json<CreatedAccountBody>(
      await server.request('/v1/admin/accounts', { method: 'POST', apiKey: server.adminKey, json: { name: 'ranges', balance: 1 } }),
    );
    for (const [amount, message] of [
      ['5', "Invalid type for 'amount': expected a number."],
      [0, "Invalid 'amount': expected a number > 0 and <= 1000000000."],
      [-1, "Invalid 'amount': expected a number > 0 and <= 1000000000."],
      [1e10, "Invalid 'amount': expected a number > 0 and <= 1000000000."],
    ] as const) {
      const credit = await server.request(`/v1/admin/accounts/${account.id}/credit`, {
        method: 'POST',
        apiKey: server.adminKey,
        json: { amount },
      });
      expect(credit.status, String(amount)).toBe(400);
      expect((await json<ErrorBody>(credit)).error, String(amount)).toMatchObject({ param: 'amount', message });
    }
    const unknown = await server.request(`/v1/admin/accounts/${account.id}/credit`, {
      method: 'POST',
      apiKey: server.adminKey,
      json: { amount: 1, currency: 'EUR' },
    });
    expect((await json<ErrorBody>(unknown)).error).toMatchObject({ param: 'currency', code: 'unknown_parameter' });
    for (const body of [{ name: '   ' }, { name: 'x', balance: -1 }, { name: 'x'.repeat(257) }]) {
      const created = await server.request('/v1/admin/accounts', { method: 'POST', apiKey: server.adminKey, json: body });
      expect(created.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    const ledger = await json<LedgerBody>(await server.request('/v1/account/ledger', { apiKey: account.api_key }));
    expect(ledger.data.map((entry) => entry.amount)).toEqual([1]);
  });

  it('keeps the admin API closed to account keys', async () => {
    const response = await server.request('/v1/admin/accounts', { method: 'POST', json: { name: 'x' } });
    expect(response.status).toBe(401);
  });

  it('stores keys hashed, never in plain text', async () => {
    const rows = await server.fathom.database.all<{ key_hash: string }>('SELECT key_hash FROM api_keys');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).not.toContain(server.apiKey);
    }
  });

  it('answers unknown routes with a 404 in the OpenAI error shape', async () => {
    const response = await server.request('/v1/nothing-here');
    expect(response.status).toBe(404);
    expect((await json<ErrorBody>(response)).error.code).toBe('not_found');
  });
});
