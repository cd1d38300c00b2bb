import { FathomError } from '../errors';
import type { Logger } from '../internal/logger';

/** What a failed response's `error` says when the cause is not one Fathom raised on purpose. */
export const INTERNAL_FAILURE = 'The server had an error while processing this response.';

/**
 * The `error` of a failed response: a FathomError says what went wrong (upstream refusals, rate limits,
 * missing files; a 429 is `rate_limit_exceeded`); anything else — a database error, a bug — is logged and shown as a generic
 * `server_error`, so SQL text, paths and stack traces never reach a client or a stored response.
 */
export function responseError(error: unknown, log: Logger, responseId: string): { code: string; message: string } {
  if (error instanceof FathomError) {
    // A 429 (a rate limit, or a balance or key budget that cannot hold the call: `insufficient_quota`) is the
    // contract's `rate_limit_exceeded`, as for assistant runs; the message says which.
    return {
      code: error.status === 429 || error.code === 'rate_limit_exceeded' ? 'rate_limit_exceeded' : 'server_error',
      message: error.message,
    };
  }
  log.error(`responses: ${responseId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { code: 'server_error', message: INTERNAL_FAILURE };
}
