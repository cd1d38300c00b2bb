import { type Env, readNumber } from './env-values';

/** Settings of the Batch API (`FATHOM_BATCH_*`), listed in docs/configuration.md. */
export interface BatchSettings {
  /** `FATHOM_BATCH_CONCURRENCY`: requests of one batch in flight at once; default 16. */
  concurrency: number;
  /** `FATHOM_BATCH_WINDOW_SECONDS`: how long the `24h` completion window lasts, in seconds; default 86400. */
  windowSeconds: number;
  /** `FATHOM_BATCH_MAX_RETRIES`: retries of a request the upstream answered 429 or 5xx; default 4. */
  maxRetries: number;
  /** `FATHOM_BATCH_RETRY_DELAY_MS`: wait before the first retry, doubled each time (or the upstream's `retry-after`); default 500. */
  retryDelayMs: number;
}

export function readBatchSettings(env: Env): BatchSettings {
  return {
    concurrency: Math.floor(readNumber(env, 'FATHOM_BATCH_CONCURRENCY', 16, 1)),
    windowSeconds: readNumber(env, 'FATHOM_BATCH_WINDOW_SECONDS', 86_400, 1),
    maxRetries: Math.floor(readNumber(env, 'FATHOM_BATCH_MAX_RETRIES', 4, 0)),
    retryDelayMs: readNumber(env, 'FATHOM_BATCH_RETRY_DELAY_MS', 500, 0),
  };
}
