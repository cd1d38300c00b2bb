import type { Database } from '../db';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import type { Account } from './accounts';
import { fromMicros } from './money';

/** An API key as an administrator sees it: never the key, only its last four characters. */
export interface ApiKeyInfo {
  id: string;
  object: 'api_key';
  /** `…` followed by the key's last four characters. */
  hint: string;
  created_at: number;
}

/** An account with its keys, for the admin views. */
export interface AccountWithKeys extends Account {
  keys: ApiKeyInfo[];
}

interface AccountRow {
  id: string;
  name: string;
  balance_micros: number;
  created_at: number;
}

/** Read-only listing of every account and its keys (the admin API's `GET /v1/admin/accounts`). */
export function listAccounts(db: Database, query: ListQuery = {}): ListPage<AccountWithKeys> {
  const keys = db.prepare<[string], { id: string; key_hint: string; created_at: number }>(
    'SELECT id, key_hint, created_at FROM api_keys WHERE account_id = ? ORDER BY rowid',
  );
  return paginate<AccountRow, AccountWithKeys>(db, {
    table: 'accounts',
    where: '1 = 1',
    params: [],
    query,
    map: (row) => ({
      id: row.id,
      object: 'account',
      name: row.name,
      balance: fromMicros(row.balance_micros),
      created_at: row.created_at,
      keys: keys.all(row.id).map((key) => ({ id: key.id, object: 'api_key', hint: `…${key.key_hint}`, created_at: key.created_at })),
    }),
  });
}
