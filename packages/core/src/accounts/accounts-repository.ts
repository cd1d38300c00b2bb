import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, toPage, type Repository, type SqlClient } from '../storage';
import type { LedgerKind } from './wire/accounts';

export type { LedgerKind };

export interface AccountRow {
  id: string;
  name: string;
  balance_micros: number;
  created_at: number;
}

export interface LedgerRow {
  id: number;
  kind: LedgerKind;
  amount_micros: number;
  ref: string | null;
  description: string | null;
  created_at: number;
  request_id: string | null;
  model: string | null;
  key_id: string | null;
}

/** A ledger row with its id as the public string id. */
export type LedgerPageRow = Omit<LedgerRow, 'id'> & { id: string };

/** Storage of accounts, keys and the ledger. Money rules (what may move when) live in `Accounts`. */
/** One ledger row to write (amounts in micro-units, negative to take). */
export interface LedgerInsert {
  accountId: string;
  kind: LedgerKind;
  micros: number;
  ref: string | null;
  description: string | null;
  createdAt: number;
  /** The request that moved the money, the model called and the key used (model calls). */
  requestId?: string | null;
  model?: string | null;
  keyId?: string | null;
}

export interface AccountsRepository extends Repository<AccountsRepository> {
  insertAccount(row: AccountRow): Promise<void>;
  account(id: string): Promise<AccountRow | undefined>;
  /** The account owning a key hash. */
  accountByKeyHash(keyHash: string): Promise<AccountRow | undefined>;
  /** The oldest account (the default one of a single-tenant install). */
  firstAccount(): Promise<AccountRow | undefined>;
  count(): Promise<number>;
  insertKey(key: { id: string; accountId: string; keyHash: string; keyHint: string; createdAt: number }): Promise<void>;
  deleteKey(id: string): Promise<boolean>;
  /**
   * Adds `micros` (negative to take) to the balance; false when the account does not exist or would go below
   * `keep` (default 0: money held in process and not yet written, which the balance must still cover).
   */
  addToBalance(accountId: string, micros: number, keep?: number): Promise<boolean>;
  /** Ledger rows, in one statement (ids in the order given). */
  insertLedger(...entries: LedgerInsert[]): Promise<void>;
  /**
   * Adds `micros` to a key's spend in its current budget window (a window that ended starts again at 0 and
   * the next reset moves on by whole durations) if its budget covers it and `keep` more (spend held in process,
   * not yet written); false otherwise. One statement.
   */
  addToKeySpend(keyId: string, micros: number, now: number, keep?: number): Promise<boolean>;
  /** Takes `micros` back from a key's spend (a hold's unused part), never below 0. */
  takeFromKeySpend(keyId: string, micros: number): Promise<void>;
  /** Micros reserved for `ref` (negative, as stored), if reserved. */
  reservation(accountId: string, ref: string): Promise<number | undefined>;
  /** Whether `ref` was already settled or released. */
  released(ref: string): Promise<boolean>;
  ledgerPage(accountId: string, query: ListQuery): Promise<ListPage<LedgerPageRow>>;
  ledgerSum(accountId: string): Promise<number>;
  /** Every account, oldest first by default (admin views). */
  accountsPage(query: ListQuery): Promise<ListPage<AccountRow>>;
  /** The keys of an account, as hints (never the key). */
  keysOf(accountId: string): Promise<Array<{ id: string; key_hint: string; created_at: number }>>;
}

/** The SQL of accounts, the same on SQLite and PostgreSQL. */
export class SqlAccountsRepository implements AccountsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): AccountsRepository {
    return new SqlAccountsRepository(tx);
  }

  async insertAccount(row: AccountRow): Promise<void> {
    await this.db.run('INSERT INTO accounts (id, name, balance_micros, created_at) VALUES (?, ?, ?, ?)', [
      row.id,
      row.name,
      row.balance_micros,
      row.created_at,
    ]);
  }

  account(id: string): Promise<AccountRow | undefined> {
    return this.db.get<AccountRow>('SELECT id, name, balance_micros, created_at FROM accounts WHERE id = ?', [id]);
  }

  accountByKeyHash(keyHash: string): Promise<AccountRow | undefined> {
    return this.db.get<AccountRow>(
      'SELECT a.id, a.name, a.balance_micros, a.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?',
      [keyHash],
    );
  }

  firstAccount(): Promise<AccountRow | undefined> {
    return this.db.get<AccountRow>('SELECT id, name, balance_micros, created_at FROM accounts ORDER BY created_at, id LIMIT 1');
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))!.n;
  }

  async insertKey(key: { id: string; accountId: string; keyHash: string; keyHint: string; createdAt: number }): Promise<void> {
    await this.db.run('INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES (?, ?, ?, ?, ?)', [
      key.id,
      key.accountId,
      key.keyHash,
      key.keyHint,
      key.createdAt,
    ]);
  }

  async deleteKey(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM api_keys WHERE id = ?', [id])).changes > 0;
  }

  async addToBalance(accountId: string, micros: number, keep = 0): Promise<boolean> {
    const result = await this.db.run('UPDATE accounts SET balance_micros = balance_micros + ? WHERE id = ? AND balance_micros + ? >= ?', [
      micros,
      accountId,
      micros,
      keep,
    ]);
    return result.changes > 0;
  }

  async insertLedger(...entries: LedgerInsert[]): Promise<void> {
    if (entries.length === 0) return;
    await this.db.run(
      `INSERT INTO ledger (account_id, kind, amount_micros, ref, description, created_at, request_id, model, key_id)
       VALUES ${entries.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      entries.flatMap((entry) => [
        entry.accountId,
        entry.kind,
        entry.micros,
        entry.ref,
        entry.description,
        entry.createdAt,
        entry.requestId ?? null,
        entry.model ?? null,
        entry.keyId ?? null,
      ]),
    );
  }

  async addToKeySpend(keyId: string, micros: number, now: number, keep = 0): Promise<boolean> {
    const ended = 'budget_reset_at IS NOT NULL AND budget_reset_at <= ?';
    const result = await this.db.run(
      `UPDATE api_keys SET
         spend_micros = (CASE WHEN ${ended} THEN 0 ELSE spend_micros END) + ?,
         budget_reset_at = CASE WHEN ${ended}
           THEN budget_reset_at + budget_duration_seconds * (CAST((? - budget_reset_at) / budget_duration_seconds AS INTEGER) + 1)
           ELSE budget_reset_at END
       WHERE id = ? AND (max_budget_micros IS NULL OR (CASE WHEN ${ended} THEN 0 ELSE spend_micros END) + ? <= max_budget_micros)`,
      [now, micros, now, now, keyId, now, micros + keep],
    );
    return result.changes > 0;
  }

  async takeFromKeySpend(keyId: string, micros: number): Promise<void> {
    await this.db.run('UPDATE api_keys SET spend_micros = CASE WHEN spend_micros > ? THEN spend_micros - ? ELSE 0 END WHERE id = ?', [
      micros,
      micros,
      keyId,
    ]);
  }

  async reservation(accountId: string, ref: string): Promise<number | undefined> {
    const row = await this.db.get<{ amount_micros: number }>(
      "SELECT amount_micros FROM ledger WHERE account_id = ? AND ref = ? AND kind = 'reserve'",
      [accountId, ref],
    );
    return row?.amount_micros;
  }

  async released(ref: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS found FROM ledger WHERE ref = ? AND kind = 'release'", [ref])) !== undefined;
  }

  /** Newest first by default; `after`/`before` are ledger entry ids of the same account. */
  async ledgerPage(accountId: string, query: ListQuery): Promise<ListPage<LedgerPageRow>> {
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['account_id = ?'];
    const params: unknown[] = [accountId];
    const cursor = (value: string, op: string) => {
      const id = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (Number.isNaN(id)) conditions.push('1 = 0');
      else conditions.push(`id ${op} ?`), params.push(id);
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = await this.db.all<LedgerRow>(
      `SELECT id, kind, amount_micros, ref, description, created_at, request_id, model, key_id FROM ledger WHERE ${conditions.join(' AND ')}
       ORDER BY id ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...params, limit + 1],
    );
    return toPage(rows, limit, (row) => ({ ...row, id: String(row.id) }));
  }

  accountsPage(query: ListQuery): Promise<ListPage<AccountRow>> {
    return paginate<AccountRow, AccountRow>(this.db, {
      table: 'accounts',
      columns: 'id, name, balance_micros, created_at',
      where: '1 = 1',
      params: [],
      query,
      map: (row) => row,
    });
  }

  keysOf(accountId: string): Promise<Array<{ id: string; key_hint: string; created_at: number }>> {
    return this.db.all('SELECT id, key_hint, created_at FROM api_keys WHERE account_id = ? ORDER BY created_at, id', [accountId]);
  }

  async ledgerSum(accountId: string): Promise<number> {
    const row = await this.db.get<{ total: number | null }>('SELECT SUM(amount_micros) AS total FROM ledger WHERE account_id = ?', [
      accountId,
    ]);
    return row?.total ?? 0;
  }
}
