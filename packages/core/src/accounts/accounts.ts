import { createHash } from 'node:crypto';
import type { Database } from '../db';
import { InsufficientBalanceError, InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds, randomToken } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import { listAccounts, type AccountWithKeys } from './account-directory';
import { fromMicros, toMicros } from './money';

export interface Account {
  id: string;
  object: 'account';
  name: string;
  /** Available balance in currency units (reservations already deducted). */
  balance: number;
  created_at: number;
}

export interface LedgerEntry {
  id: string;
  object: 'ledger.entry';
  kind: 'credit' | 'reserve' | 'charge' | 'release';
  /** Signed amount in currency units: credits and releases positive, reserves and charges negative. */
  amount: number;
  ref: string | null;
  description: string | null;
  created_at: number;
}

interface AccountRow {
  id: string;
  name: string;
  balance_micros: number;
  created_at: number;
}

interface LedgerRow {
  id: number;
  kind: LedgerEntry['kind'];
  amount_micros: number;
  ref: string | null;
  description: string | null;
  created_at: number;
}

/** SHA-256 of a key. Keys are 192-bit random tokens, so a fast hash is the right tool (no password stretching needed). */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/**
 * Accounts, their hashed API keys, and the money ledger.
 * The balance column always equals the sum of the account's ledger rows; every movement
 * is one transaction that updates both. A `(ref, kind)` pair is written at most once, so
 * a job can be reserved, charged and released exactly once even across crashes and retries.
 */
export class Accounts {
  readonly #db: Database;
  #authenticateStatement: import('better-sqlite3').Statement<[string], AccountRow> | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Creates an account with an initial balance (a `credit` ledger row) and a first API key. */
  create(input: { name: string; balance?: number }): { account: Account; apiKey: string; keyId: string } {
    if (typeof input.name !== 'string' || input.name.trim() === '') {
      throw new InvalidRequestError("Missing required parameter: 'name'.", 'name');
    }
    const balance = input.balance ?? 0;
    if (typeof balance !== 'number' || !Number.isFinite(balance) || balance < 0) {
      throw new InvalidRequestError("Invalid 'balance': expected a number >= 0.", 'balance');
    }
    const id = newId('acct_');
    return this.#db.transaction(() => {
      this.#db
        .prepare('INSERT INTO accounts (id, name, balance_micros, created_at) VALUES (?, ?, 0, ?)')
        .run(id, input.name.trim(), nowSeconds());
      if (balance > 0) this.#move(id, 'credit', toMicros(balance), null, 'initial balance');
      const key = this.createKey(id);
      return { account: this.get(id), apiKey: key.api_key, keyId: key.id };
    })();
  }

  /** Issues a new key for the account. The plain key is returned once; only its hash is stored. */
  createKey(accountId: string, apiKey?: string): { id: string; api_key: string } {
    this.get(accountId);
    const key = apiKey ?? `fth_${randomToken(40)}`;
    const id = newId('key_');
    this.#db
      .prepare('INSERT INTO api_keys (id, account_id, key_hash, key_hint, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, accountId, hashApiKey(key), key.slice(-4), nowSeconds());
    return { id, api_key: key };
  }

  /** Revokes a key. Returns false when no such key exists. */
  deleteKey(keyId: string): boolean {
    return this.#db.prepare('DELETE FROM api_keys WHERE id = ?').run(keyId).changes > 0;
  }

  /** The account a bearer key belongs to, or null. */
  authenticate(apiKey: string): Account | null {
    // Prepared once: this runs on every authenticated request (models engineer, gateway hot path).
    this.#authenticateStatement ??= this.#db.prepare<[string], AccountRow>(
      'SELECT a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?',
    );
    const row = this.#authenticateStatement.get(hashApiKey(apiKey));
    return row ? toAccount(row) : null;
  }

  get(id: string): Account {
    const row = this.#db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?').get(id);
    if (!row) throw new NotFoundError('account', id);
    return toAccount(row);
  }

  /** Every account with its keys' hints (admin views). */
  list(query: ListQuery = {}): ListPage<AccountWithKeys> {
    return listAccounts(this.#db, query);
  }

  count(): number {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM accounts').get() as { n: number }).n;
  }

  /** Adds money (admin top-up). */
  credit(accountId: string, amount: number, description = 'credit'): Account {
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
      throw new InvalidRequestError("Invalid 'amount': expected a number > 0.", 'amount');
    }
    this.get(accountId);
    this.#db.transaction(() => this.#move(accountId, 'credit', toMicros(amount), null, description))();
    return this.get(accountId);
  }

  /**
   * Holds `amount` for `ref` if the balance covers it, in one conditional UPDATE.
   * Throws 402 `insufficient_balance` otherwise; nothing is written then.
   */
  reserve(accountId: string, amount: number, ref: string, description?: string): void {
    const micros = toMicros(amount);
    this.#db.transaction(() => {
      const changed = this.#db
        .prepare('UPDATE accounts SET balance_micros = balance_micros - ? WHERE id = ? AND balance_micros >= ?')
        .run(micros, accountId, micros).changes;
      if (changed === 0) {
        const account = this.get(accountId);
        throw new InsufficientBalanceError(
          `Insufficient balance: this operation needs ${amount} but the account balance is ${account.balance}.`,
        );
      }
      this.#insertLedger(accountId, 'reserve', -micros, ref, description ?? null);
    })();
  }

  /**
   * Settles a reservation: releases what was reserved for `ref` and charges `cost` (capped at the
   * reservation). Idempotent: a second settle of the same `ref` changes nothing and returns false.
   */
  settle(accountId: string, ref: string, cost: number, description?: string): boolean {
    return this.#db.transaction(() => {
      const reserved = this.#db
        .prepare<[string, string], { amount_micros: number }>(
          "SELECT amount_micros FROM ledger WHERE account_id = ? AND ref = ? AND kind = 'reserve'",
        )
        .get(accountId, ref);
      if (!reserved) return false;
      const already = this.#db.prepare("SELECT 1 FROM ledger WHERE ref = ? AND kind = 'release'").get(ref);
      if (already) return false;
      const held = -reserved.amount_micros;
      const charge = Math.min(Math.max(0, toMicros(cost)), held);
      this.#move(accountId, 'release', held, ref, description ?? null);
      if (charge > 0) this.#move(accountId, 'charge', -charge, ref, description ?? null);
      return true;
    })();
  }

  /** Releases a reservation without charging (failed job). Idempotent. */
  release(accountId: string, ref: string, description?: string): boolean {
    return this.settle(accountId, ref, 0, description);
  }

  ledger(accountId: string, query: ListQuery = {}): ListPage<LedgerEntry> {
    return paginate<LedgerRow, LedgerEntry>(this.#db, {
      table: 'ledger',
      where: 'account_id = ?',
      params: [accountId],
      query: { ...query, after: undefined, before: undefined },
      idColumn: 'id',
      map: toLedgerEntry,
    });
  }

  /** Sum of the account's ledger, for consistency checks; always equals the balance. */
  ledgerSum(accountId: string): number {
    const row = this.#db
      .prepare<[string], { total: number | null }>('SELECT SUM(amount_micros) AS total FROM ledger WHERE account_id = ?')
      .get(accountId);
    return fromMicros(row?.total ?? 0);
  }

  #move(accountId: string, kind: LedgerEntry['kind'], micros: number, ref: string | null, description: string | null): void {
    this.#db.prepare('UPDATE accounts SET balance_micros = balance_micros + ? WHERE id = ?').run(micros, accountId);
    this.#insertLedger(accountId, kind, micros, ref, description);
  }

  #insertLedger(accountId: string, kind: LedgerEntry['kind'], micros: number, ref: string | null, description: string | null): void {
    this.#db
      .prepare('INSERT INTO ledger (account_id, kind, amount_micros, ref, description, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(accountId, kind, micros, ref, description, nowSeconds());
  }
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, object: 'account', name: row.name, balance: fromMicros(row.balance_micros), created_at: row.created_at };
}

function toLedgerEntry(row: LedgerRow): LedgerEntry & { id: string } {
  return {
    id: String(row.id),
    object: 'ledger.entry',
    kind: row.kind,
    amount: fromMicros(row.amount_micros),
    ref: row.ref,
    description: row.description,
    created_at: row.created_at,
  };
}
