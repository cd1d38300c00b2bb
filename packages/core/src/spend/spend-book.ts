import { fromMicros, type ModelCallMoney, type PendingMoney } from '../accounts';
import { InsufficientQuotaError, NotFoundError } from '../errors';
import type { SqliteDatabase } from '../storage';

/** A key's minute window as counted: requests and tokens. */
export interface WindowCounts {
  requests: number;
  tokens: number;
}

/**
 * What this process has decided and not yet written (SQLite, where one `fathom serve` owns the data
 * dir): model-call holds per account and per key, and rate-limit window counts per key and minute. A
 * decision reads the persisted row synchronously (better-sqlite3, on the one connection) and adds what is
 * pending here, then records itself here in the same synchronous step, so two requests cannot both take
 * the last of a balance, a budget or a window. An entry leaves the book once the write that persists it
 * has committed; until then it is counted twice at worst (refusing a little early, never overspending).
 */
export class SpendBook implements PendingMoney {
  readonly #db: SqliteDatabase;
  readonly #accounts = new Map<string, number>();
  readonly #keys = new Map<string, number>();
  readonly #windows = new Map<string, WindowCounts>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  account(accountId: string): number {
    return this.#accounts.get(accountId) ?? 0;
  }

  key(keyId: string): number {
    return this.#keys.get(keyId) ?? 0;
  }

  /**
   * Holds `call.micros` in process if the account's balance and the key's budget (in its current window)
   * cover it with everything pending; throws 429 `insufficient_quota` (the messages of `Accounts.hold`) otherwise.
   */
  hold(call: ModelCallMoney, now: number): void {
    const account = this.#db.prepare('SELECT balance_micros FROM accounts WHERE id = ?').get(call.accountId) as
      | { balance_micros: number }
      | undefined;
    if (!account) throw new NotFoundError('account', call.accountId);
    const available = account.balance_micros - this.account(call.accountId);
    if (available - call.micros < 0) {
      throw new InsufficientQuotaError(
        `You exceeded your current quota: this call to ${call.model} may cost up to ${fromMicros(call.micros)} but the account balance is ${fromMicros(Math.max(0, available))}.`,
      );
    }
    if (call.keyId) {
      const key = this.#db.prepare('SELECT spend_micros, max_budget_micros, budget_reset_at FROM api_keys WHERE id = ?').get(call.keyId) as
        | { spend_micros: number; max_budget_micros: number | null; budget_reset_at: number | null }
        | undefined;
      const spent = key && key.budget_reset_at !== null && key.budget_reset_at <= now ? 0 : (key?.spend_micros ?? 0);
      // A key revoked meanwhile (background work) has no budget left: refused as `Accounts.hold` refuses it.
      if (!key || (key.max_budget_micros !== null && spent + this.key(call.keyId) + call.micros > key.max_budget_micros)) {
        throw new InsufficientQuotaError(
          `You exceeded your current quota: this call to ${call.model} may cost up to ${fromMicros(call.micros)}, more than what is left of this API key's budget.`,
        );
      }
      add(this.#keys, call.keyId, call.micros);
    }
    add(this.#accounts, call.accountId, call.micros);
  }

  /** Takes a hold out of the book: it was written (or will never be). */
  release(call: ModelCallMoney): void {
    add(this.#accounts, call.accountId, -call.micros);
    if (call.keyId) add(this.#keys, call.keyId, -call.micros);
  }

  /**
   * Counts one request (and `tokens`) in a key's window if the window, persisted and pending, has room:
   * `fits` decides from the counts so far (a window not seen yet always has room). The counts after, or
   * undefined when refused.
   */
  countRequest(keyId: string, start: number, tokens: number, fits: (seen: WindowCounts) => boolean): WindowCounts | undefined {
    const seen = this.window(keyId, start);
    if (seen && !fits(seen)) return undefined;
    this.addToWindow(keyId, start, { requests: 1, tokens });
    return { requests: (seen?.requests ?? 0) + 1, tokens: (seen?.tokens ?? 0) + tokens };
  }

  /** A key's window as persisted plus pending, or undefined when neither has it. */
  window(keyId: string, start: number): WindowCounts | undefined {
    const row = this.#db.prepare('SELECT requests, tokens FROM key_rate_windows WHERE key_id = ? AND window_start = ?').get(keyId, start) as
      | WindowCounts
      | undefined;
    const pending = this.#windows.get(`${keyId}@${start}`);
    if (!row && !pending) return undefined;
    return { requests: (row?.requests ?? 0) + (pending?.requests ?? 0), tokens: (row?.tokens ?? 0) + (pending?.tokens ?? 0) };
  }

  addToWindow(keyId: string, start: number, counts: WindowCounts): void {
    const name = `${keyId}@${start}`;
    const pending = this.#windows.get(name) ?? { requests: 0, tokens: 0 };
    pending.requests += counts.requests;
    pending.tokens += counts.tokens;
    if (pending.requests === 0 && pending.tokens === 0) this.#windows.delete(name);
    else this.#windows.set(name, pending);
  }

  /** The pending counts of a window, to write. */
  pendingWindow(keyId: string, start: number): WindowCounts {
    const pending = this.#windows.get(`${keyId}@${start}`);
    return { requests: pending?.requests ?? 0, tokens: pending?.tokens ?? 0 };
  }
}

function add(map: Map<string, number>, name: string, micros: number): void {
  const total = (map.get(name) ?? 0) + micros;
  if (total === 0) map.delete(name);
  else map.set(name, total);
}
