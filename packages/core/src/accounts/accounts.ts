import { createHash } from 'node:crypto';
import { InsufficientBalanceError, InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds, randomToken } from '../internal/ids';
import type { SqlClient } from '../storage';
import { type AccountRow, type AccountsRepository, type LedgerKind, SqlAccountsRepository } from './accounts-repository';
import { checkAmount, fromMicros, toMicros } from './money';
import type {
  Account,
  AccountCreated,
  AccountCreateParams,
  AccountCreditParams,
  AccountListParams,
  AccountsPage,
  ApiKeyCreated,
  ApiKeyDeleted,
  LedgerEntry,
  LedgerListParams,
  LedgerPage,
} from './wire/accounts';

/**
 * SHA-256 of a key. Keys are `fth_` plus 40 random base62 characters (about 238 bits), so a fast hash
 * is the right tool: there is nothing to stretch.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/**
 * Accounts, their hashed API keys, and the money ledger. The balance always equals the sum of the
 * account's ledger rows: every movement is one transaction that writes both. A `(ref, kind)` pair is
 * written at most once, so a job is reserved, charged and released exactly once, across crashes,
 * retries and processes.
 *
 * `fathom.accounts` (with `.keys` and `.ledger`) serves the account and admin routes. Beside them, for
 * the server and the other capabilities: `authenticate` (the bearer-key check of every request), and the
 * money rules (`reserve`, `settle`, `release`, `in` a transaction, `ledgerSum`), `first` and `count`.
 */
export class Accounts {
  /** API keys of accounts (admin): issue and revoke. */
  readonly keys: ApiKeys;
  /** The money ledger of an account. */
  readonly ledger: Ledger;
  readonly #db: SqlClient;
  readonly #repository: AccountsRepository;

  constructor(db: SqlClient, repository: AccountsRepository = new SqlAccountsRepository(db)) {
    this.#db = db;
    this.#repository = repository;
    this.keys = new ApiKeys(repository, this);
    this.ledger = new Ledger(repository);
  }

  /** The same accounts inside a transaction of another capability (e.g. a job reserved with its row). */
  in(tx: SqlClient): Accounts {
    return new Accounts(tx, this.#repository.in(tx));
  }

  /**
   * Creates an account with an initial balance (a `credit` ledger row) and a first API key, shown this
   * once. `options.apiKey` issues that key instead of a random one (the bootstrap's `FATHOM_API_KEY`).
   */
  async create(params: AccountCreateParams, options: { apiKey?: string } = {}): Promise<AccountCreated> {
    const balance = checkAmount(params.balance ?? 0, 'balance');
    const id = newId('acct_');
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      await repository.insertAccount({ id, name: params.name.trim(), balance_micros: 0, created_at: nowSeconds() });
      if (balance > 0) await move(repository, id, 'credit', balance, null, 'initial balance');
      const inTx = this.in(tx);
      const key = await inTx.keys.create(id, options.apiKey);
      const account = await inTx.retrieve(id);
      return { id: account.id, name: account.name, balance: account.balance, api_key: key.api_key };
    });
  }

  /** The account a bearer key belongs to, or null. */
  async authenticate(apiKey: string): Promise<Account | null> {
    const row = await this.#repository.accountByKeyHash(hashApiKey(apiKey));
    return row ? toAccount(row) : null;
  }

  async retrieve(id: string): Promise<Account> {
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
  async list(query: AccountListParams = {}): Promise<AccountsPage> {
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

  /** Adds money (admin top-up): in whole micro-units; the balance stays within what an account can hold. */
  async credit(accountId: string, params: AccountCreditParams, description = 'credit'): Promise<Account> {
    const units = checkAmount(params.amount, 'amount');
    await this.retrieve(accountId);
    await this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      const account = await repository.account(accountId);
      if (account && account.balance_micros + toMicros(units) > Number.MAX_SAFE_INTEGER) {
        throw new InvalidRequestError("Invalid 'amount': the balance would exceed the largest balance an account can hold.", 'amount');
      }
      await move(repository, accountId, 'credit', units, null, description);
    });
    return this.retrieve(accountId);
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
        const account = await this.in(tx).retrieve(accountId);
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

  /** Sum of the account's ledger, for consistency checks; always equals the balance. */
  async ledgerSum(accountId: string): Promise<number> {
    return fromMicros(await this.#repository.ledgerSum(accountId));
  }
}

/** `fathom.accounts.keys`: API keys (admin). Keys are `fth_` plus 40 random base62 characters, stored as SHA-256 hashes. */
export class ApiKeys {
  readonly #repository: AccountsRepository;
  readonly #accounts: Accounts;

  constructor(repository: AccountsRepository, accounts: Accounts) {
    this.#repository = repository;
    this.#accounts = accounts;
  }

  /** Issues a new key for the account (404 for an unknown one). The plain key is returned once; only its hash is stored. */
  async create(accountId: string, apiKey?: string): Promise<ApiKeyCreated> {
    await this.#accounts.retrieve(accountId);
    const key = apiKey ?? `fth_${randomToken(40)}`;
    const id = newId('key_');
    await this.#repository.insertKey({ id, accountId, keyHash: hashApiKey(key), keyHint: key.slice(-4), createdAt: nowSeconds() });
    return { id, api_key: key };
  }

  /** Revokes a key, on every process sharing the database at once (keys are looked up per request); 404 for an unknown one. */
  async delete(keyId: string): Promise<ApiKeyDeleted> {
    if (!(await this.#repository.deleteKey(keyId))) throw new NotFoundError('key', keyId);
    return { id: keyId, object: 'api_key', deleted: true };
  }
}

/** `fathom.accounts.ledger`: every movement of an account's money. */
export class Ledger {
  readonly #repository: AccountsRepository;

  constructor(repository: AccountsRepository) {
    this.#repository = repository;
  }

  /** The account's ledger, newest first; pages with `after`/`before` (entry ids). */
  async list(accountId: string, query: LedgerListParams = {}): Promise<LedgerPage> {
    const page = await this.#repository.ledgerPage(accountId, query);
    return { ...page, data: page.data.map(toLedgerEntry) };
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
