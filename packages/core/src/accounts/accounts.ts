import { createHash } from 'node:crypto';
import { InsufficientBalanceError, InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds, randomToken } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { SqlClient } from '../storage';
import { type AccountRow, type AccountsRepository, type LedgerKind, SqlAccountsRepository } from './accounts-repository';
import type { AccountWithKeys } from './account-directory';
import { fromMicros, parseAmount, toMicros } from './money';

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
  kind: LedgerKind;
  /** Signed amount in currency units: credits and releases positive, reserves and charges negative. */
  amount: number;
  ref: string | null;
  description: string | null;
  created_at: number;
}

/**
 * SHA-256 of a key. Keys are `fth_` plus 40 random base62 characters (about 238 bits), so a fast hash
 * is the right tool: there is nothing to stretch.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** Longest account name, as OpenAI caps names. */
const MAX_NAME = 256;

/**
 * Accounts, their hashed API keys, and the money ledger. The balance always equals the sum of the
 * account's ledger rows: every movement is one transaction that writes both. A `(ref, kind)` pair is
 * written at most once, so a job is reserved, charged and released exactly once, across crashes,
 * retries and processes.
 */
export class Accounts {
  readonly #db: SqlClient;
  readonly #repository: AccountsRepository;

  constructor(db: SqlClient, repository: AccountsRepository = new SqlAccountsRepository(db)) {
    this.#db = db;
    this.#repository = repository;
  }

  /** The same accounts inside a transaction of another capability (e.g. a job reserved with its row). */
  in(tx: SqlClient): Accounts {
    return new Accounts(tx, this.#repository.in(tx));
  }

  /** Creates an account with an initial balance (a `credit` ledger row) and a first API key. */
  async create(input: { name: string; balance?: number }): Promise<{ account: Account; apiKey: string; keyId: string }> {
    if (typeof input.name !== 'string' || input.name.trim() === '') {
      throw new InvalidRequestError("Missing required parameter: 'name'.", 'name');
    }
    if (input.name.length > MAX_NAME) {
      throw new InvalidRequestError(`Invalid 'name': string too long. Expected a string with maximum length ${MAX_NAME}.`, 'name');
    }
    const balance = input.balance === undefined ? 0 : parseAmount(input.balance, 'balance', { allowZero: true });
    const id = newId('acct_');
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      await repository.insertAccount({ id, name: input.name.trim(), balance_micros: 0, created_at: nowSeconds() });
      if (balance > 0) await move(repository, id, 'credit', balance, null, 'initial balance');
      const key = await this.in(tx).createKey(id);
      return { account: await this.in(tx).get(id), apiKey: key.api_key, keyId: key.id };
    });
  }

  /** Issues a new key for the account. The plain key is returned once; only its hash is stored. */
  async createKey(accountId: string, apiKey?: string): Promise<{ id: string; api_key: string }> {
    await this.get(accountId);
    const key = apiKey ?? `fth_${randomToken(40)}`;
    const id = newId('key_');
    await this.#repository.insertKey({ id, accountId, keyHash: hashApiKey(key), keyHint: key.slice(-4), createdAt: nowSeconds() });
    return { id, api_key: key };
  }

  /** Revokes a key, on every process sharing the database at once (keys are looked up per request). */
  deleteKey(keyId: string): Promise<boolean> {
    return this.#repository.deleteKey(keyId);
  }

  /** The account a bearer key belongs to, or null. */
  async authenticate(apiKey: string): Promise<Account | null> {
    const row = await this.#repository.accountByKeyHash(hashApiKey(apiKey));
    return row ? toAccount(row) : null;
  }

  async get(id: string): Promise<Account> {
    const row = await this.#repository.account(id);
    if (!row) throw new NotFoundError('account', id);
    return toAccount(row);
  }

  /** The oldest account: the default one of a single-tenant install (the CLI works as it). */
  async first(): Promise<Account | null> {
    const row = await this.#repository.firstAccount();
    return row ? toAccount(row) : null;
  }

  count(): Promise<number> {
    return this.#repository.count();
  }

  /** Every account with its keys' hints (admin views). */
  async list(query: ListQuery = {}): Promise<ListPage<AccountWithKeys>> {
    const page = await this.#repository.accountsPage(query);
    const data = await Promise.all(
      page.data.map(async (row) => ({
        ...toAccount(row),
        keys: (await this.#repository.keysOf(row.id)).map((key) => ({
          id: key.id,
          object: 'api_key' as const,
          hint: `…${key.key_hint}`,
          created_at: key.created_at,
        })),
      })),
    );
    return { ...page, data };
  }

  /** Adds money (admin top-up): a finite amount > 0, in whole micro-units, at most 1e9 units. */
  async credit(accountId: string, amount: unknown, description = 'credit'): Promise<Account> {
    const units = parseAmount(amount, 'amount');
    await this.get(accountId);
    await this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      const account = await repository.account(accountId);
      if (account && account.balance_micros + toMicros(units) > Number.MAX_SAFE_INTEGER) {
        throw new InvalidRequestError("Invalid 'amount': the balance would exceed the largest balance an account can hold.", 'amount');
      }
      await move(repository, accountId, 'credit', units, null, description);
    });
    return this.get(accountId);
  }

  /**
   * Holds `amount` for `ref` if the balance covers it, in one conditional UPDATE with its ledger row.
   * Throws 402 `insufficient_balance` otherwise; nothing is written then.
   */
  async reserve(accountId: string, amount: number, ref: string, description?: string): Promise<void> {
    const micros = toMicros(amount);
    await this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      if (!(await repository.addToBalance(accountId, -micros))) {
        const account = await this.in(tx).get(accountId);
        throw new InsufficientBalanceError(
          `Insufficient balance: this operation needs ${amount} but the account balance is ${account.balance}.`,
        );
      }
      await repository.insertLedger({
        accountId,
        kind: 'reserve',
        micros: -micros,
        ref,
        description: description ?? null,
        createdAt: nowSeconds(),
      });
    });
  }

  /**
   * Settles a reservation: releases what was reserved for `ref` and charges `cost` (capped at the
   * reservation). Idempotent: a second settle of the same `ref` changes nothing and returns false.
   */
  settle(accountId: string, ref: string, cost: number, description?: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      const reserved = await repository.reservation(accountId, ref);
      if (reserved === undefined || (await repository.released(ref))) return false;
      const held = -reserved;
      const charge = Math.min(Math.max(0, toMicros(cost)), held);
      await moveMicros(repository, accountId, 'release', held, ref, description ?? null);
      if (charge > 0) await moveMicros(repository, accountId, 'charge', -charge, ref, description ?? null);
      return true;
    });
  }

  /** Releases a reservation without charging (failed job). Idempotent. */
  release(accountId: string, ref: string, description?: string): Promise<boolean> {
    return this.settle(accountId, ref, 0, description);
  }

  /** The account's ledger, newest first; pages with `after`/`before` (entry ids). */
  async ledger(accountId: string, query: ListQuery = {}): Promise<ListPage<LedgerEntry>> {
    const page = await this.#repository.ledgerPage(accountId, query);
    return { ...page, data: page.data.map(toLedgerEntry) };
  }

  /** Sum of the account's ledger, for consistency checks; always equals the balance. */
  async ledgerSum(accountId: string): Promise<number> {
    return fromMicros(await this.#repository.ledgerSum(accountId));
  }
}

async function move(
  repository: AccountsRepository,
  accountId: string,
  kind: LedgerKind,
  units: number,
  ref: string | null,
  description: string | null,
) {
  await moveMicros(repository, accountId, kind, toMicros(units), ref, description);
}

async function moveMicros(
  repository: AccountsRepository,
  accountId: string,
  kind: LedgerKind,
  micros: number,
  ref: string | null,
  description: string | null,
) {
  if (!(await repository.addToBalance(accountId, micros))) throw new NotFoundError('account', accountId);
  await repository.insertLedger({ accountId, kind, micros, ref, description, createdAt: nowSeconds() });
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, object: 'account', name: row.name, balance: fromMicros(row.balance_micros), created_at: row.created_at };
}

function toLedgerEntry(row: {
  id: string;
  kind: LedgerKind;
  amount_micros: number;
  ref: string | null;
  description: string | null;
  created_at: number;
}): LedgerEntry {
  return {
    id: row.id,
    object: 'ledger.entry',
    kind: row.kind,
    amount: fromMicros(row.amount_micros),
    ref: row.ref,
    description: row.description,
    created_at: row.created_at,
  };
}
