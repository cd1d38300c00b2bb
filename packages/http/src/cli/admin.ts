import type { AccountCreated, AccountsPage, AccountWithKeys, ApiKeyCreated, ApiKeyDeleted, ApiKeyWithValue } from '@fathom/core';
import { callApi, type Target, UsageError, withFathom } from './context';
import { formatTime, printJson, printTable } from './output';

/** Every account with its keys' hints, through the admin API (remote) or core (embedded). */
async function allAccounts(target: Target): Promise<AccountWithKeys[]> {
  const all: AccountWithKeys[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page =
      target.mode === 'remote'
        ? await callApi<AccountsPage>(target, 'GET', `/v1/admin/accounts?${query}`)
        : await withFathom((fathom) => fathom.accounts.list({ limit: 100, after }));
    all.push(...page.data);
    if (!page.has_more || !page.last_id) return all;
    after = page.last_id;
  }
}

/** `fathom accounts list` */
export async function listAccounts(target: Target, json: boolean): Promise<void> {
  const accounts = await allAccounts(target);
  if (json) return printJson(accounts);
  printTable(
    ['ID', 'NAME', 'BALANCE', 'KEYS', 'CREATED'],
    accounts.map((a) => [a.id, a.name, a.balance, a.keys.length, formatTime(a.created_at)]),
  );
}

/** `fathom accounts create`: the account and its first key, shown this once. */
export async function createAccount(target: Target, name: string, balance: number | undefined, json: boolean): Promise<void> {
  const body = { name, ...(balance === undefined ? {} : { balance }) };
  const created =
    target.mode === 'remote'
      ? await callApi<AccountCreated>(target, 'POST', '/v1/admin/accounts', body)
      : await withFathom(async (fathom) => {
          const { AccountCreateParams } = await import('@fathom/core');
          const { checkValue } = await import('../validators');
          return fathom.accounts.create(checkValue(AccountCreateParams, body));
        });
  if (json) return printJson(created);
  console.log(`Created account ${created.id} (${created.name}), balance ${created.balance}.`);
  console.log(`Its API key, shown once; keep it:\n\n  ${created.api_key}\n`);
}

/** `fathom keys create`: a new key for an account, shown this once. */
export async function createKey(target: Target, accountId: string, json: boolean): Promise<void> {
  const created =
    target.mode === 'remote'
      ? await callApi<ApiKeyCreated>(target, 'POST', `/v1/admin/accounts/${encodeURIComponent(accountId)}/keys`, {})
      : await withFathom((fathom) => fathom.accounts.keys.create(accountId));
  if (json) return printJson(created);
  const secret = 'api_key' in created ? created.api_key : created.value;
  console.log(`Created key ${created.id} for ${accountId}. Shown once; keep it:\n\n  ${secret}\n`);
}

/** `fathom keys list`: key ids and hints (never the keys), of one account or of all. */
export async function listKeys(target: Target, accountId: string | undefined, json: boolean): Promise<void> {
  const accounts = (await allAccounts(target)).filter((a) => !accountId || a.id === accountId);
  if (accountId && accounts.length === 0) throw new Error(`No account with id '${accountId}'.`);
  const keys = accounts.flatMap((a) => a.keys.map((key) => ({ ...key, account_id: a.id })));
  if (json) return printJson(keys);
  printTable(
    ['ID', 'ACCOUNT', 'HINT', 'CREATED'],
    keys.map((k) => [k.id, k.account_id, k.hint, formatTime(k.created_at)]),
  );
}

/** `fathom keys revoke` */
export async function revokeKey(target: Target, keyId: string, json: boolean): Promise<void> {
  const deleted =
    target.mode === 'remote'
      ? await callApi<ApiKeyDeleted>(target, 'DELETE', `/v1/admin/keys/${encodeURIComponent(keyId)}`)
      : await withFathom((fathom) => fathom.accounts.keys.delete(keyId));
  if (json) return printJson(deleted);
  console.log(`Revoked key ${deleted.id}.`);
}

/** `fathom keys rotate`: a new secret for a key, shown this once; the old one works for `graceSeconds`. */
export async function rotateKey(target: Target, accountId: string, keyId: string, graceSeconds: string, json: boolean): Promise<void> {
  const grace = Number(graceSeconds);
  if (!Number.isInteger(grace) || grace < 0)
    throw new UsageError(`--grace-period must be a whole number of seconds, got '${graceSeconds}'.`);
  const body = { grace_period_seconds: grace };
  const path = `/v1/admin/accounts/${encodeURIComponent(accountId)}/keys/${encodeURIComponent(keyId)}/rotate`;
  const rotated =
    target.mode === 'remote'
      ? await callApi<ApiKeyWithValue>(target, 'POST', path, body)
      : await withFathom((fathom) => fathom.accounts.keys.rotate(accountId, keyId, body));
  if (json) return printJson(rotated);
  console.log(`Rotated key ${rotated.id}. The new secret is shown once; keep it:\n\n  ${rotated.value}\n`);
  if (grace > 0) console.log(`The old secret keeps working for ${grace} s.`);
}
