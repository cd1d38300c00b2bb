import { FathomError } from '../errors';
import type { Logger } from '../internal/logger';

/** What a failed response's `error` says when the cause is not one Fathom raised on purpose. */
export const INTERNAL_FAILURE = 'The server had an error while processing this response.';

/**
 * The `error` of a failed response: a FathomError says what went wrong (upstream refusals, rate limits,
 * missing files); anything else — a database error, a bug — is logged and shown as a generic
 * `server_error`, so SQL text, paths and stack traces never reach a client or a stored response.
 */
export function responseError(error: unknown, log: Logger, responseId: string): { code: string; message: string } {
  if (error instanceof FathomError) {
    return { code: error.code === 'rate_limit_exceeded' ? error.code : 'server_error', message: error.message };
  }
  log.error(`responses: ${responseId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { code: 'server_error', message: INTERNAL_FAILURE };
}
