import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitError } from '../errors';
import type { SqlClient } from '../storage';
import { type RateWindows, SqlRateWindows } from './rate-windows';

/** A key's limits per minute (`rpm_limit`, `tpm_limit`); null = none. */
export interface KeyRateLimitsOf {
  id: string;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

const WINDOW_SECONDS = 60;

/** The start (unix seconds) of the one-minute window `nowMs` falls in. */
function windowStartOf(nowMs: number): number {
  return Math.floor(nowMs / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
}

/**
 * Per-key requests and tokens per minute, shared by every process on the database: one fixed one-minute
 * window row per key, counted by a single upsert whose row condition admits a request only while the window
 * has room (so two processes cannot both take the last slot), or on SQLite decided in process and written
 * behind (`windows`, chosen in `charging-path.ts`). Tokens are added when a model call settles; a request
 * is refused while the window's tokens have reached the limit. Answers OpenAI's headers.
 */
export class KeyRateLimits {
  readonly #db: SqlClient;
  readonly #now: () => number;
  readonly #windows: RateWindows;

  constructor(db: SqlClient, now: () => number = Date.now, windows: RateWindows = new SqlRateWindows(db)) {
    this.#db = db;
    this.#now = now;
    this.#windows = windows;
  }

  /** Counts one request of the key; its `x-ratelimit-*` headers, or 429 `rate_limit_exceeded` carrying them and `retry-after`. */
  async admit(key: KeyRateLimitsOf): Promise<Record<string, string>> {
    const nowMs = this.#now();
    const start = windowStartOf(nowMs);
    const resetMs = (start + WINDOW_SECONDS) * 1000 - nowMs;
    const rpm = key.rpm_limit ?? Number.MAX_SAFE_INTEGER;
    const tpm = key.tpm_limit ?? Number.MAX_SAFE_INTEGER;
    const row = await this.#windows.admit(key.id, start, rpm, tpm);
    const headers = (requests: number, tokens: number) => ({
      ...(key.rpm_limit !== null
        ? {
            'x-ratelimit-limit-requests': String(key.rpm_limit),
            'x-ratelimit-remaining-requests': String(Math.max(0, key.rpm_limit - requests)),
            'x-ratelimit-reset-requests': openAiDuration(resetMs),
          }
        : {}),
      ...(key.tpm_limit !== null
        ? {
            'x-ratelimit-limit-tokens': String(key.tpm_limit),
            'x-ratelimit-remaining-tokens': String(Math.max(0, key.tpm_limit - tokens)),
            'x-ratelimit-reset-tokens': openAiDuration(resetMs),
          }
        : {}),
    });
    if (row) return headers(row.requests, row.tokens);
    const seen = await this.#windows.seen(key.id, start);
    const which = key.rpm_limit !== null && (seen?.requests ?? 0) >= key.rpm_limit ? 'requests' : 'tokens';
    const limit = which === 'requests' ? key.rpm_limit : key.tpm_limit;
    throw new RateLimitError(
      `Rate limit reached for this API key: ${limit} ${which} per minute. Try again in ${openAiDuration(resetMs)}.`,
      {
        ...headers(seen?.requests ?? 0, seen?.tokens ?? 0),
        'retry-after': String(Math.max(1, Math.ceil(resetMs / 1000))),
        'retry-after-ms': String(Math.max(1, resetMs)),
      },
    );
  }

  /**
   * Waits until the key's current window has room for one more request and `tokens` more tokens, then
   * counts both there in the same conditional upsert as `admit` (so processes sharing the database never
   * overfill it): a batch line, which waits for the window rather than fail. A window with no tokens yet
   * always has room (a line larger than `tpm_limit` still runs, alone in its minute). Polls at most every
   * second (the window may be freed by the minute turning or refilled by other processes); throws
   * `signal`'s reason once it aborts.
   */
  async admitWaiting(key: KeyRateLimitsOf, tokens: number, signal?: AbortSignal): Promise<void> {
    const rpm = key.rpm_limit ?? Number.MAX_SAFE_INTEGER;
    const tpm = key.tpm_limit ?? Number.MAX_SAFE_INTEGER;
    const counted = Math.max(0, Math.ceil(tokens));
    for (;;) {
      signal?.throwIfAborted();
      const nowMs = this.#now();
      const start = windowStartOf(nowMs);
      if (await this.#windows.admitWithTokens(key.id, start, counted, rpm, tpm)) return;
      const resetMs = (start + WINDOW_SECONDS) * 1000 - nowMs;
      await sleep(Math.min(1000, Math.max(10, resetMs)), undefined, { signal });
    }
  }

  /** Adds a settled call's tokens to the key's current window (in `tx` when given: the transaction that captures the call). */
  async addTokens(keyId: string, tokens: number, tx?: SqlClient): Promise<void> {
    if (!(tokens > 0)) return;
    await this.#windows.addTokens(keyId, windowStartOf(this.#now()), Math.ceil(tokens), tx);
  }

  /** Drops windows older than the current one (called with the hold sweep). */
  async prune(): Promise<void> {
    const start = windowStartOf(this.#now());
    await this.#db.run('DELETE FROM key_rate_windows WHERE window_start < ?', [start - WINDOW_SECONDS]);
  }
}

/** A duration as OpenAI writes it in `x-ratelimit-reset-*`: `20ms`, `1s`, `6m0s`. */
export function openAiDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const seconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}
