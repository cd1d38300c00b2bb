import { InsufficientBalanceError, InsufficientQuotaError, InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { SqlClient } from '../storage';
import {
  type AccountRow,
  type AccountsRepository,
  type LedgerKind,
  type LedgerPageRow,
  SqlAccountsRepository,
} from './accounts-repository';
import { ApiKeys, hashApiKey, toApiKey } from './api-keys';
import type { KeyGrant } from './key-rules';
import { grantOf } from './api-keys';
import { SqlKeysRepository } from './keys-repository';
import { checkAmount, fromMicros, toMicros } from './money';
import { metrics } from '../observability/metrics';
import type { ApiKey } from './wire/keys';
import type {
  Account,
  AccountCreated,
  AccountCreateParams,
  AccountCreditParams,
  AccountListParams,
  AccountsPage,
  LedgerEntry,
  LedgerListParams,
  LedgerPage,
} from './wire/accounts';

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
  /** API keys of accounts as objects: issue, list, change, rotate, revoke. */
  readonly keys: ApiKeys;
  /** The money ledger of an account. */
  readonly ledger: Ledger;
  readonly #db: SqlClient;
  readonly #repository: AccountsRepository;
  readonly #keys: SqlKeysRepository;
  readonly #pending: PendingMoney;

  /**
   * `pending`: money held in this process and not yet written (SQLite's model-call holds, see
   * `spend/charging-path.ts`), which every hold and reservation leaves untouched: one balance.
   * `reads`: the client of the views of money (accounts, the ledger, keys with their spend), which on
   * SQLite first writes the queued charges (`ChargingPath.reads`); `repository` should read through it too.
   * Only the bearer-key check of every request reads `db` directly (it shows no money).
   */
  constructor(
    db: SqlClient,
    repository: AccountsRepository = new SqlAccountsRepository(db),
    pending: PendingMoney = NOTHING_PENDING,
    reads: SqlClient = db,
  ) {
    this.#db = db;
    this.#repository = repository;
    this.#pending = pending;
    this.keys = new ApiKeys(new SqlKeysRepository(reads), async (accountId) => {
      await this.retrieve(accountId);
    });
    this.#keys = new SqlKeysRepository(db);
    this.ledger = new Ledger(repository);
  }

  /** The same accounts inside a transaction of another capability (e.g. a job reserved with its row). */
  in(tx: SqlClient): Accounts {
    return new Accounts(tx, this.#repository.in(tx), this.#pending);
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
      const key = await inTx.keys.create(id, {}, {}, { apiKey: options.apiKey });
      const account = await inTx.retrieve(id);
      return { id: account.id, name: account.name, balance: account.balance, api_key: key.value };
    });
  }

  /** The account a bearer key belongs to, or null (unknown, expired, or rotated out past its grace period). */
  async authenticate(apiKey: string): Promise<Account | null> {
    return (await this.authenticateKey(apiKey))?.account ?? null;
  }

  /**
   * The account and the key of a bearer secret with what the key grants, or null; records the key's use (to
   * the minute). On every request's path, so it does not wait for the queued charges: the balance and the
   * key's spend it carries may miss the last few ms of calls (a view of money reads `retrieve`).
   */
  async authenticateKey(apiKey: string, now = nowSeconds()): Promise<{ account: Account; key: KeyGrant; apiKey: ApiKey } | null> {
    const found = await this.#keys.byHash(hashApiKey(apiKey), now);
    if (!found || (found.key.expires_at !== null && found.key.expires_at <= now)) return null;
    if (found.key.last_used_at === null || found.key.last_used_at <= now - 60) await this.#keys.touch(found.key.id, now);
    return { account: toAccount(found.account), key: { ...grantOf(found.key), id: found.key.id }, apiKey: toApiKey(found.key, now) };
  }

  /** What a key of the account grants now (for work it started that runs later), or null when it was revoked. */
  async keyGrant(accountId: string, keyId: string): Promise<KeyGrant | null> {
    const row = await this.#keys.get(accountId, keyId);
    return row ? { ...grantOf(row), id: row.id } : null;
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
      if (!(await repository.addToBalance(accountId, -micros, this.#pending.account(accountId)))) {
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
    metrics.money.inc({ kind: 'reserve' }, micros / 1_000_000);
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

  /**
   * Holds `micros` for a model call `ref`: from the balance and, with `keyId`, from the key's budget
   * window, each a conditional UPDATE, with the `reserve` ledger row, in one transaction (in the caller's
   * when this `Accounts` is bound to one). Throws 429 `insufficient_quota` when either cannot cover it;
   * nothing is written then. `inPending`: the hold is among the pending money already (decided in process,
   * written now), so only the others' pending money is left untouched.
   */
  async hold(call: ModelCallMoney, now = nowSeconds(), inPending = false): Promise<void> {
    const own = inPending ? call.micros : 0;
    await this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      if (!(await repository.addToBalance(call.accountId, -call.micros, this.#pending.account(call.accountId) - own))) {
        const account = await this.in(tx).retrieve(call.accountId);
        throw new InsufficientQuotaError(
          `You exceeded your current quota: this call to ${call.model} may cost up to ${fromMicros(call.micros)} but the account balance is ${account.balance}.`,
        );
      }
      if (call.keyId && !(await repository.addToKeySpend(call.keyId, call.micros, now, this.#pending.key(call.keyId) - own))) {
        throw new InsufficientQuotaError(
          `You exceeded your current quota: this call to ${call.model} may cost up to ${fromMicros(call.micros)}, more than what is left of this API key's budget.`,
        );
      }
      await repository.insertLedger({ ...ledgerOf(call), kind: 'reserve', micros: -call.micros, createdAt: now });
    });
  }

  /**
   * Settles a model call's hold: releases it and charges `micros` (capped at the hold), giving the unused
   * part back to the key's budget too. Idempotent: false when `ref` was never held or already settled.
   * `held`: the caller's own exactly-once guard in the same transaction (the meter's `model_calls` row
   * moved from held to settled) vouches for a hold of that amount, so the ledger is not read again; the
   * `(ref, kind)` unique index still refuses a second settlement.
   */
  capture(call: ModelCallMoney, held?: number): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      if (held === undefined) {
        const reserved = await repository.reservation(call.accountId, call.ref);
        if (reserved === undefined || (await repository.released(call.ref))) return false;
        held = -reserved;
      }
      const charge = Math.min(Math.max(0, call.micros), held);
      const createdAt = nowSeconds();
      const entry = ledgerOf(call);
      // One balance update for release and charge: the hold covers the charge, so the balance only grows.
      if (!(await repository.addToBalance(call.accountId, held - charge))) throw new NotFoundError('account', call.accountId);
      await repository.insertLedger(
        { ...entry, kind: 'release', micros: held, createdAt },
        ...(charge > 0 ? [{ ...entry, kind: 'charge' as const, micros: -charge, createdAt }] : []),
      );
      if (call.keyId && held > charge) await repository.takeFromKeySpend(call.keyId, held - charge);
      return true;
    });
  }

  /**
   * A model call held in process (its hold among the pending money) and answered before its hold was
   * written: the `reserve`, `release` and `charge` rows of `hold` + `capture` at once, the balance and the
   * key's budget moved by the charge only (`cost`, capped at the hold). Throws 429 `insufficient_quota` if
   * they no longer cover it beside the others' pending money; nothing is written then.
   */
  chargeAnswered(call: ModelCallMoney, cost: number, now = nowSeconds()): Promise<void> {
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      const charge = Math.min(Math.max(0, cost), call.micros);
      const othersPending = (pending: number) => pending - call.micros;
      if (!(await repository.addToBalance(call.accountId, -charge, othersPending(this.#pending.account(call.accountId))))) {
        throw new InsufficientQuotaError(
          `You exceeded your current quota: the account balance no longer covers this call to ${call.model}.`,
        );
      }
      if (call.keyId && !(await repository.addToKeySpend(call.keyId, charge, now, othersPending(this.#pending.key(call.keyId))))) {
        throw new InsufficientQuotaError(
          `You exceeded your current quota: this API key's budget no longer covers this call to ${call.model}.`,
        );
      }
      const entry = { ...ledgerOf(call), createdAt: now };
      // The three rows in one statement.
      await repository.insertLedger(
        { ...entry, kind: 'reserve', micros: -call.micros },
        { ...entry, kind: 'release', micros: call.micros },
        ...(charge > 0 ? [{ ...entry, kind: 'charge' as const, micros: -charge }] : []),
      );
    });
  }

  /**
   * Charges `micros` out of a hold that covers several calls (a batch's): a `release` and a `charge` row
   * under the call's own `ref`, the balance unchanged (the money was taken by the hold). The caller keeps
   * what is left of the hold. Idempotent: false when `ref` was charged already.
   */
  chargeFromHold(call: ModelCallMoney): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      if (call.micros <= 0 || (await repository.released(call.ref))) return false;
      const entry = { ...ledgerOf(call), createdAt: nowSeconds() };
      await repository.insertLedger({ ...entry, kind: 'release', micros: call.micros }, { ...entry, kind: 'charge', micros: -call.micros });
      return true;
    });
  }

  /** Gives back what is left (`micros`) of a hold that covers several calls, to the balance and the key's budget: one `release` row under the hold's `ref`. */
  releaseHeld(call: ModelCallMoney): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      if (await repository.released(call.ref)) return false;
      if (!(await repository.addToBalance(call.accountId, call.micros))) throw new NotFoundError('account', call.accountId);
      await repository.insertLedger({ ...ledgerOf(call), kind: 'release', micros: call.micros, createdAt: nowSeconds() });
      if (call.keyId && call.micros > 0) await repository.takeFromKeySpend(call.keyId, call.micros);
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
  metrics.money.inc({ kind }, Math.abs(micros) / 1_000_000);
}

/** Money held in process and not yet written, per account and per key (micro-units). */
export interface PendingMoney {
  account(accountId: string): number;
  key(keyId: string): number;
}

const NOTHING_PENDING: PendingMoney = { account: () => 0, key: () => 0 };

/** Money of one model call: its hold, or (to `capture`) its cost; micro-units. */
export interface ModelCallMoney {
  accountId: string;
  /** The call's id, the ledger rows' `ref`. */
  ref: string;
  micros: number;
  keyId?: string | null;
  requestId: string;
  model: string;
}

function ledgerOf(call: ModelCallMoney) {
  return {
    accountId: call.accountId,
    ref: call.ref,
    description: `model call ${call.model}`,
    requestId: call.requestId,
    model: call.model,
    keyId: call.keyId ?? null,
  };
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, object: 'account', name: row.name, balance: fromMicros(row.balance_micros), created_at: row.created_at };
}

function toLedgerEntry(row: LedgerPageRow): LedgerEntry {
  return {
    id: row.id,
    object: 'ledger.entry',
    kind: row.kind,
    amount: fromMicros(row.amount_micros),
    ref: row.ref,
    description: row.description,
    created_at: row.created_at,
    request_id: row.request_id,
    model: row.model,
    key_id: row.key_id,
  };
}
