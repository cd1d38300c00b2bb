import type { SqlClient } from '../storage';
import type { SpendBook, WindowCounts } from './spend-book';
import type { WriteBehind } from './write-behind';

/**
 * Where a key's one-minute windows are counted (`KeyRateLimits` holds the rules and the headers): in the
 * database at once (`SqlRateWindows`, processes sharing PostgreSQL), or decided in process and written
 * behind (`BookedRateWindows`, SQLite's one server process). See `charging-path.ts`.
 */
export interface RateWindows {
  /** Counts one request if the window has room for it (`requests < rpm`, `tokens < tpm`); the counts after, or undefined. */
  admit(keyId: string, start: number, rpm: number, tpm: number): Promise<WindowCounts | undefined>;
  /** Counts one request and `tokens` if they fit (a window without tokens always has room); whether counted. */
  admitWithTokens(keyId: string, start: number, tokens: number, rpm: number, tpm: number): Promise<boolean>;
  /** The window's counts so far. */
  seen(keyId: string, start: number): Promise<WindowCounts | undefined>;
  /** Adds tokens to a window: in `tx` when given (the transaction that captures the call), else as this store writes. */
  addTokens(keyId: string, start: number, tokens: number, tx?: SqlClient): Promise<void>;
}

const ADD_TOKENS = `INSERT INTO key_rate_windows (key_id, window_start, requests, tokens) VALUES (?, ?, 0, ?)
  ON CONFLICT (key_id, window_start) DO UPDATE SET tokens = key_rate_windows.tokens + excluded.tokens`;

/** Each count one conditional upsert (so two processes cannot both take the last slot). */
export class SqlRateWindows implements RateWindows {
  constructor(private readonly db: SqlClient) {}

  admit(keyId: string, start: number, rpm: number, tpm: number): Promise<WindowCounts | undefined> {
    return this.db.get<WindowCounts>(
      `INSERT INTO key_rate_windows (key_id, window_start, requests, tokens) VALUES (?, ?, 1, 0)
       ON CONFLICT (key_id, window_start) DO UPDATE SET requests = key_rate_windows.requests + 1
       WHERE key_rate_windows.requests < ? AND key_rate_windows.tokens < ?
       RETURNING requests, tokens`,
      [keyId, start, rpm, tpm],
    );
  }

  async admitWithTokens(keyId: string, start: number, tokens: number, rpm: number, tpm: number): Promise<boolean> {
    const row = await this.db.get<{ requests: number }>(
      `INSERT INTO key_rate_windows (key_id, window_start, requests, tokens) VALUES (?, ?, 1, ?)
       ON CONFLICT (key_id, window_start) DO UPDATE SET requests = key_rate_windows.requests + 1, tokens = key_rate_windows.tokens + excluded.tokens
       WHERE key_rate_windows.requests < ? AND (key_rate_windows.tokens = 0 OR key_rate_windows.tokens + excluded.tokens <= ?)
       RETURNING requests`,
      [keyId, start, tokens, rpm, tpm],
    );
    return row !== undefined;
  }

  seen(keyId: string, start: number): Promise<WindowCounts | undefined> {
    return this.db.get<WindowCounts>('SELECT requests, tokens FROM key_rate_windows WHERE key_id = ? AND window_start = ?', [keyId, start]);
  }

  async addTokens(keyId: string, start: number, tokens: number, tx: SqlClient = this.db): Promise<void> {
    await tx.run(ADD_TOKENS, [keyId, start, tokens]);
  }
}

/**
 * Decided in process from the persisted window plus the book's pending counts, and written behind: one
 * lazy op per window gathers every count made until it runs (a crash loses at most those counts: the
 * window is a minute, and no money rides on it).
 */
export class BookedRateWindows implements RateWindows {
  readonly #book: SpendBook;
  readonly #writes: WriteBehind;
  readonly #queued = new Set<string>();

  constructor(book: SpendBook, writes: WriteBehind) {
    this.#book = book;
    this.#writes = writes;
  }

  async admit(keyId: string, start: number, rpm: number, tpm: number): Promise<WindowCounts | undefined> {
    const counts = this.#book.countRequest(keyId, start, 0, (seen) => seen.requests < rpm && seen.tokens < tpm);
    if (counts) this.#writeBehind(keyId, start);
    return counts;
  }

  async admitWithTokens(keyId: string, start: number, tokens: number, rpm: number, tpm: number): Promise<boolean> {
    const counts = this.#book.countRequest(
      keyId,
      start,
      tokens,
      (seen) => seen.requests < rpm && (seen.tokens === 0 || seen.tokens + tokens <= tpm),
    );
    if (counts) this.#writeBehind(keyId, start);
    return counts !== undefined;
  }

  async seen(keyId: string, start: number): Promise<WindowCounts | undefined> {
    return this.#book.window(keyId, start);
  }

  async addTokens(keyId: string, start: number, tokens: number, tx?: SqlClient): Promise<void> {
    if (tx) {
      await tx.run(ADD_TOKENS, [keyId, start, tokens]);
      return;
    }
    this.#book.addToWindow(keyId, start, { requests: 0, tokens });
    this.#writeBehind(keyId, start);
  }

  #writeBehind(keyId: string, start: number): void {
    const name = `${keyId}@${start}`;
    if (this.#queued.has(name)) return;
    this.#queued.add(name);
    let written: WindowCounts | undefined;
    this.#writes.enqueue(
      {
        run: async (tx) => {
          // What is pending when the op runs moves from the book to the transaction (whose uncommitted rows
          // the book's reads on the same connection see); counts made later queue the next op.
          this.#queued.delete(name);
          written = this.#book.pendingWindow(keyId, start);
          this.#book.addToWindow(keyId, start, { requests: -written.requests, tokens: -written.tokens });
          await tx.run(
            `INSERT INTO key_rate_windows (key_id, window_start, requests, tokens) VALUES (?, ?, ?, ?)
             ON CONFLICT (key_id, window_start) DO UPDATE SET requests = key_rate_windows.requests + excluded.requests,
               tokens = key_rate_windows.tokens + excluded.tokens`,
            [keyId, start, written.requests, written.tokens],
          );
        },
        undo: () => {
          // Rolled back with another op: the counts go back to the book, to be taken again by the retry.
          if (written) this.#book.addToWindow(keyId, start, written);
          written = undefined;
        },
        done: (committed) => {
          if (!written) this.#queued.delete(name);
          // Not written: the counts stay in the book (counted in process until the window ends), logged by the queue.
          else if (!committed) this.#book.addToWindow(keyId, start, written);
        },
      },
      'lazy',
    );
  }
}
