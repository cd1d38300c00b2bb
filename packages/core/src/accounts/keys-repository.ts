import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, type Repository, type SqlClient } from '../storage';
import type { AccountRow } from './accounts-repository';

/** An API key as stored: its hash (never the key), its limits and its spend in the budget window. */
export interface KeyRow {
  id: string;
  account_id: string;
  key_hint: string;
  name: string | null;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  permissions: string | null;
  models: string | null;
  max_budget_micros: number | null;
  budget_duration: string | null;
  budget_duration_seconds: number | null;
  spend_micros: number;
  budget_reset_at: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

/** The settings of a key a create or update writes. */
export type KeySettings = Pick<
  KeyRow,
  | 'name'
  | 'expires_at'
  | 'permissions'
  | 'models'
  | 'max_budget_micros'
  | 'budget_duration'
  | 'budget_duration_seconds'
  | 'budget_reset_at'
  | 'rpm_limit'
  | 'tpm_limit'
>;

const KEY_COLUMNS =
  'id, account_id, key_hint, name, created_at, last_used_at, expires_at, permissions, models, max_budget_micros, budget_duration, ' +
  'budget_duration_seconds, spend_micros, budget_reset_at, rpm_limit, tpm_limit';

export interface KeysRepository extends Repository<KeysRepository> {
  insert(row: { id: string; accountId: string; keyHash: string; keyHint: string; createdAt: number; settings: KeySettings }): Promise<void>;
  /** The key of a secret, current or (until its grace period ends) rotated out, with its account. */
  byHash(keyHash: string, now: number): Promise<{ key: KeyRow; account: AccountRow } | undefined>;
  get(accountId: string, id: string): Promise<KeyRow | undefined>;
  page(accountId: string, query: ListQuery): Promise<ListPage<KeyRow>>;
  /** The name and hint of the account's keys among `ids` (a usage answer's labels). */
  labels(accountId: string, ids: readonly string[]): Promise<Array<Pick<KeyRow, 'id' | 'name' | 'key_hint'>>>;
  update(accountId: string, id: string, settings: Partial<KeySettings> & { spend_micros?: number }): Promise<boolean>;
  /** Gives the key a new secret; the old one works until `previousExpiresAt`. */
  rotate(
    accountId: string,
    id: string,
    keyHash: string,
    keyHint: string,
    previousHash: string | null,
    previousExpiresAt: number | null,
  ): Promise<boolean>;
  /** The hash of the key's current secret. */
  hashOf(id: string): Promise<string | undefined>;
  delete(accountId: string, id: string): Promise<boolean>;
  /** Deletes a key of any account (admin). */
  deleteAny(id: string): Promise<boolean>;
  /** Records a use, at most once a minute per key (a write per request would cost every request). */
  touch(id: string, now: number): Promise<void>;
}

export class SqlKeysRepository implements KeysRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): KeysRepository {
    return new SqlKeysRepository(tx);
  }

  async insert(row: {
    id: string;
    accountId: string;
    keyHash: string;
    keyHint: string;
    createdAt: number;
    settings: KeySettings;
  }): Promise<void> {
    const s = row.settings;
    await this.db.run(
      `INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at, name, expires_at, permissions, models, max_budget_micros,
         budget_duration, budget_duration_seconds, budget_reset_at, rpm_limit, tpm_limit)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.accountId,
        row.keyHash,
        row.keyHint,
        row.createdAt,
        s.name,
        s.expires_at,
        s.permissions,
        s.models,
        s.max_budget_micros,
        s.budget_duration,
        s.budget_duration_seconds,
        s.budget_reset_at,
        s.rpm_limit,
        s.tpm_limit,
      ],
    );
  }

  async byHash(keyHash: string, now: number): Promise<{ key: KeyRow; account: AccountRow } | undefined> {
    const row = await this.db.get<KeyRow & { account_name: string; balance_micros: number; account_created_at: number }>(
      `SELECT ${KEY_COLUMNS.split(', ')
        .map((column) => `k.${column}`)
        .join(', ')}, a.name AS account_name, a.balance_micros, a.created_at AS account_created_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? OR (k.previous_key_hash = ? AND k.previous_expires_at > ?)`,
      [keyHash, keyHash, now],
    );
    if (!row) return undefined;
    const { account_name, balance_micros, account_created_at, ...key } = row;
    return { key, account: { id: key.account_id, name: account_name, balance_micros, created_at: account_created_at } };
  }

  get(accountId: string, id: string): Promise<KeyRow | undefined> {
    return this.db.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = ? AND id = ?`, [accountId, id]);
  }

  async labels(accountId: string, ids: readonly string[]): Promise<Array<Pick<KeyRow, 'id' | 'name' | 'key_hint'>>> {
    const rows: Array<Pick<KeyRow, 'id' | 'name' | 'key_hint'>> = [];
    // In slices, well under every driver's limit of bound parameters.
    for (let start = 0; start < ids.length; start += 500) {
      const slice = ids.slice(start, start + 500);
      rows.push(
        ...(await this.db.all<Pick<KeyRow, 'id' | 'name' | 'key_hint'>>(
          `SELECT id, name, key_hint FROM api_keys WHERE account_id = ? AND id IN (${slice.map(() => '?').join(', ')})`,
          [accountId, ...slice],
        )),
      );
    }
    return rows;
  }

  page(accountId: string, query: ListQuery): Promise<ListPage<KeyRow>> {
    return paginate<KeyRow, KeyRow>(this.db, {
      table: 'api_keys',
      columns: KEY_COLUMNS,
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => row,
    });
  }

  async update(accountId: string, id: string, settings: Partial<KeySettings> & { spend_micros?: number }): Promise<boolean> {
    const entries = Object.entries(settings).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return (await this.get(accountId, id)) !== undefined;
    const result = await this.db.run(
      `UPDATE api_keys SET ${entries.map(([column]) => `${column} = ?`).join(', ')} WHERE account_id = ? AND id = ?`,
      [...entries.map(([, value]) => value), accountId, id],
    );
    return result.changes > 0;
  }

  async rotate(
    accountId: string,
    id: string,
    keyHash: string,
    keyHint: string,
    previousHash: string | null,
    previousExpiresAt: number | null,
  ): Promise<boolean> {
    const result = await this.db.run(
      'UPDATE api_keys SET key_hash = ?, key_hint = ?, previous_key_hash = ?, previous_expires_at = ? WHERE account_id = ? AND id = ?',
      [keyHash, keyHint, previousHash, previousExpiresAt, accountId, id],
    );
    return result.changes > 0;
  }

  async hashOf(id: string): Promise<string | undefined> {
    return (await this.db.get<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = ?', [id]))?.key_hash;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM api_keys WHERE account_id = ? AND id = ?', [accountId, id])).changes > 0;
  }

  async deleteAny(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM api_keys WHERE id = ?', [id])).changes > 0;
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)', [
      now,
      id,
      now - 60,
    ]);
  }
}
