import { UpstreamError } from '../errors';
import { delay } from './delay';

export interface RetryOptions {
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  /** Wait before the first retry, ms; default 250. Each next wait is `factor` times longer. */
  initialDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Longest wait, ms (also caps a `retry-after`); default 30 000. */
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Which failures are worth another attempt; default: retryable UpstreamErrors. */
  isRetryable?: (error: unknown) => boolean;
  /** How to wait; default `delay` (tests pass a fake clock's). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are used up, waiting between
 * attempts with exponential backoff (or as long as the upstream's `retry-after` asks, capped). The
 * waits end at once when `signal` aborts. The last failure is thrown.
 */
export async function retryWithBackoff<T>(attempt: (number: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const maxRetries = options.maxRetries ?? 2;
  const factor = options.factor ?? 2;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const retryable = options.isRetryable ?? ((error: unknown) => error instanceof UpstreamError && error.isRetryable);
  for (let number = 0; ; number++) {
    try {
      return await attempt(number);
    } catch (error) {
      if (number >= maxRetries || options.signal?.aborted || !retryable(error)) throw error;
      const backoff = (options.initialDelayMs ?? 250) * factor ** number;
      const asked = error instanceof UpstreamError ? error.retryAfterMs : undefined;
      await (options.sleep ?? delay)(Math.min(maxDelay, asked ?? backoff), options.signal);
    }
  }
}
