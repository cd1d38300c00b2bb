import type { SqlClient } from '../storage';
import { RATE_WINDOW_MS, type RateLimiter } from './rate-limiter';

/** Tries when another process took the slot this call aimed at. */
const RACE_RETRIES = 8;

export interface SqlRateLimiterOptions {
  /** Clock in ms; default `Date.now`. Processes sharing a database should have synchronised clocks. */
  now?: () => number;
  /** Window length, ms; default one minute. */
  windowMs?: number;
}

/**
 * A sliding window shared by every process on one database (SQLite or PostgreSQL). A key has up to
 * `limit` slots (numbered from 0, created as calls need them), each holding the time of the call that
 * last used it. A call takes a slot whose last use is a full window old, or creates the next slot if
 * fewer than `limit` exist; each is one statement correct by its own row condition, so two processes
 * racing for one slot cannot both get it (the loser tries again). A call is therefore admitted exactly
 * when fewer than `limit` calls were admitted in the last window, as the in-memory limiter does.
 */
export class SqlRateLimiter implements RateLimiter {
  readonly #db: SqlClient;
  readonly #now: () => number;
  readonly #windowMs: number;

  constructor(db: SqlClient, options: SqlRateLimiterOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? RATE_WINDOW_MS;
  }

  async tryAcquire(key: string, limit: number): Promise<boolean> {
    // As the in-memory limiter: a call is admitted while fewer than `limit` were (2.5 admits 3).
    const slots = Math.ceil(limit);
    if (!(slots > 0)) return false;
    const now = this.#now();
    const freeBefore = now - this.#windowMs;
    for (let attempt = 0; attempt < RACE_RETRIES; attempt++) {
      const reused = await this.#db.run(
        `UPDATE webhook_rate_slots SET used_at = ?
         WHERE rate_key = ? AND used_at <= ? AND slot = (
           SELECT slot FROM webhook_rate_slots WHERE rate_key = ? AND used_at <= ? AND slot < ? ORDER BY used_at LIMIT 1)`,
        [now, key, freeBefore, key, freeBefore, slots],
      );
      if (reused.changes > 0) return true;
      const top = await this.#db.get<{ top: number | null }>('SELECT MAX(slot) AS top FROM webhook_rate_slots WHERE rate_key = ?', [key]);
      const next = (top?.top ?? -1) + 1;
      if (next >= slots) {
        // Every slot exists and none was free; unless one freed meanwhile, the window is full.
        const free = await this.#db.get(
          'SELECT 1 AS free FROM webhook_rate_slots WHERE rate_key = ? AND used_at <= ? AND slot < ? LIMIT 1',
          [key, freeBefore, slots],
        );
        if (!free) return false;
        continue;
      }
      const created = await this.#db.run(
        'INSERT INTO webhook_rate_slots (rate_key, slot, used_at) VALUES (?, ?, ?) ON CONFLICT (rate_key, slot) DO NOTHING',
        [key, next, now],
      );
      if (created.changes > 0) return true;
    }
    return false;
  }
}
