import type { SqlClient } from '../storage';
import { RATE_WINDOW_MS, type RateLimiter } from './rate-limiter';

/** Rows inserted per statement when a key gets its slots. */
const SLOT_BATCH = 200;
/** `used_at` of a slot never used: free in any window, whatever the clock says. */
const NEVER = -Number.MAX_SAFE_INTEGER;
/** Tries when another process took the slot this call aimed at while free slots remain. */
const RACE_RETRIES = 5;

export interface SqlRateLimiterOptions {
  /** Clock in ms; default `Date.now`. Processes sharing a database should have synchronised clocks. */
  now?: () => number;
  /** Window length, ms; default one minute. */
  windowMs?: number;
}

/**
 * A sliding window shared by every process on one database (SQLite or PostgreSQL). Each key has
 * `limit` slots holding the time of the call that last used them; a call takes the least recently
 * used slot if that use is a full window old, in one conditional UPDATE, so it is correct by its row
 * condition alone: two processes aiming at the same slot cannot both take it (the loser tries another).
 */
export class SqlRateLimiter implements RateLimiter {
  readonly #db: SqlClient;
  readonly #now: () => number;
  readonly #windowMs: number;
  /** Keys known to have at least this many slots (skips the check on the hot path). */
  readonly #slots = new Map<string, number>();

  constructor(db: SqlClient, options: SqlRateLimiterOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? RATE_WINDOW_MS;
  }

  async tryAcquire(key: string, limit: number): Promise<boolean> {
    const slots = Math.max(0, Math.floor(limit));
    if (slots === 0) return false;
    await this.#ensureSlots(key, slots);
    const now = this.#now();
    const freeBefore = now - this.#windowMs;
    for (let attempt = 0; attempt < RACE_RETRIES; attempt++) {
      const taken = await this.#db.run(
        `UPDATE webhook_rate_slots SET used_at = ?
         WHERE rate_key = ? AND used_at <= ? AND slot = (
           SELECT slot FROM webhook_rate_slots WHERE rate_key = ? AND slot < ? AND used_at <= ? ORDER BY used_at, slot LIMIT 1)`,
        [now, key, freeBefore, key, slots, freeBefore],
      );
      if (taken.changes > 0) return true;
      const free = await this.#db.get('SELECT 1 AS free FROM webhook_rate_slots WHERE rate_key = ? AND slot < ? AND used_at <= ? LIMIT 1', [
        key,
        slots,
        freeBefore,
      ]);
      if (!free) return false;
    }
    return false;
  }

  /** Gives the key `count` slots (never used) if it has fewer; concurrent callers insert each slot once. */
  async #ensureSlots(key: string, count: number): Promise<void> {
    if ((this.#slots.get(key) ?? 0) >= count) return;
    const row = await this.#db.get<{ slots: number }>('SELECT COUNT(*) AS slots FROM webhook_rate_slots WHERE rate_key = ? AND slot < ?', [
      key,
      count,
    ]);
    if ((row?.slots ?? 0) < count) {
      for (let start = 0; start < count; start += SLOT_BATCH) {
        const slots = Array.from({ length: Math.min(SLOT_BATCH, count - start) }, (_, index) => start + index);
        await this.#db.run(
          `INSERT INTO webhook_rate_slots (rate_key, slot, used_at) VALUES ${slots.map(() => '(?, ?, ?)').join(', ')}
           ON CONFLICT (rate_key, slot) DO NOTHING`,
          slots.flatMap((slot) => [key, slot, NEVER]),
        );
      }
    }
    if (this.#slots.size > 10_000) this.#slots.clear();
    this.#slots.set(key, count);
  }
}
