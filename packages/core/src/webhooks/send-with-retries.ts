import type { EgressGuardContract, EgressResponse } from '../egress/types';

/** What one route call came to after its attempts: an answer, or the error text for the model. */
export type SendOutcome = { ok: true; response: EgressResponse } | { ok: false; error: string };

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

/**
 * Sends through the egress guard: any answer — including status >= 400 — ends the call;
 * network failures (refused connection, timeout, client exception) are retried up to `retries` times
 * after waits of 1 s then 2 s. A refused destination is final and never retried.
 */
export async function sendWithRetries(options: SendOptions): Promise<SendOutcome> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) {
      try {
        await options.sleep(retryDelayMs(attempt), options.signal);
      } catch {
        return { ok: false, error: 'Error: request cancelled' };
      }
    }
    if (options.signal?.aborted) return { ok: false, error: 'Error: request cancelled' };
    try {
      const response = await options.egress.request(options.url, {
        method: options.method,
        headers: options.headers,
        body: options.body,
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        signal: options.signal,
      });
      return { ok: true, response };
    } catch (error) {
      if (codeOf(error) === 'destination_not_allowed') return { ok: false, error: 'Error: destination not allowed' };
      // A request undici refuses to send (bad method, header...) is not a network failure: no retry.
      if (codeOf(error) === 'UND_ERR_INVALID_ARG') return { ok: false, error: `Error: Invalid request - ${(error as Error).message}` };
      if (options.signal?.aborted) return { ok: false, error: 'Error: request cancelled' };
      lastError = error;
    }
  }
  if (codeOf(lastError) === 'egress_timeout') return { ok: false, error: 'Error: Timeout' };
  const detail =
    lastError instanceof Error
      ? lastError.cause instanceof Error
        ? `${lastError.message} (${lastError.cause.message})`
        : lastError.message
      : String(lastError);
  return { ok: false, error: `Error: Request failed - ${detail}` };
}
