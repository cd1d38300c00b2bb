import type { EgressGuardContract, EgressResponse } from '../egress/types';
import { retryWithBackoff } from '../transport';

/** What one route call came to after its attempts: an answer, or the error text for the model. */
export type SendOutcome = { ok: true; response: EgressResponse } | { ok: false; error: string; blocked?: true };

export interface SendOptions {
  egress: EgressGuardContract;
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Per-attempt deadline (ms). */
  timeoutMs: number;
  maxBytes: number;
  /** Attempts after the first one for network failures (0 when retryOnError is false). */
  retries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

/** The wait before retry `n` (1-based): 1 s, 2 s, then doubling. */
export function retryDelayMs(retry: number): number {
  return 1000 * 2 ** (retry - 1);
}

function codeOf(error: unknown): string | undefined {
  return (error as { code?: unknown } | null)?.code as string | undefined;
}

/** Failures that are not worth another attempt: a refused destination, a request undici refuses to send. */
function isFinal(error: unknown): boolean {
  return codeOf(error) === 'destination_not_allowed' || codeOf(error) === 'UND_ERR_INVALID_ARG';
}

/**
 * Sends through the egress guard: any answer — including status >= 400 — ends the call; network
 * failures (refused connection, timeout, client exception) are retried up to `retries` times after
 * waits of 1 s then 2 s (the shared backoff of outbound calls). A refused destination is final.
 */
export async function sendWithRetries(options: SendOptions): Promise<SendOutcome> {
  try {
    const response = await retryWithBackoff(
      () => {
        options.signal?.throwIfAborted();
        return options.egress.request(options.url, {
          method: options.method,
          headers: options.headers,
          body: options.body,
          timeoutMs: options.timeoutMs,
          maxBytes: options.maxBytes,
          signal: options.signal,
        });
      },
      {
        maxRetries: options.retries,
        initialDelayMs: retryDelayMs(1),
        factor: 2,
        signal: options.signal,
        isRetryable: (error) => !isFinal(error),
        sleep: options.sleep,
      },
    );
    return { ok: true, response };
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, error: 'Error: request cancelled' };
    if (codeOf(error) === 'destination_not_allowed') return { ok: false, error: 'Error: destination not allowed', blocked: true };
    if (codeOf(error) === 'UND_ERR_INVALID_ARG') return { ok: false, error: `Error: Invalid request - ${(error as Error).message}` };
    if (codeOf(error) === 'egress_timeout') return { ok: false, error: 'Error: Timeout' };
    const detail =
      error instanceof Error ? (error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message) : String(error);
    return { ok: false, error: `Error: Request failed - ${detail}` };
  }
}
