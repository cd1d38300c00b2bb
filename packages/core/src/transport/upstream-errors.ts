import { UpstreamError } from '../errors';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  const value = error as { code?: string; cause?: { code?: string } } | undefined;
  return value?.code ?? value?.cause?.code;
}

/** The message an upstream error body carries (OpenAI `{error: {message}}`, Anthropic `{type: "error", error: {message}}`, plain text). */
export function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      (typeof parsed?.error === 'object' ? parsed.error?.message : undefined) ??
      parsed?.message ??
      (typeof parsed?.error === 'string' ? parsed.error : undefined);
    if (typeof message === 'string' && message) return message.slice(0, 500);
  } catch {
    // Not JSON: the text itself.
  }
  return body.slice(0, 500) || 'no error body';
}

/** Whether a failure happened in the transport (no answer): refused, reset, unreachable, timed out. */
export function isNetworkFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && (NETWORK_CODES.has(code) || TIMEOUT_CODES.has(code));
}

/**
 * A transport failure as an UpstreamError, the same for every capability: a timeout answers 504, any
 * other failure to get an answer 502; aborts pass through unchanged. Retryable when no byte of an
 * answer can have been processed (refused, reset, unreachable, connect timeout).
 */
export function transportError(error: unknown, what: string, url: string): Error {
  if (error instanceof UpstreamError) return error;
  const code = errorCode(error);
  if ((error as Error)?.name === 'AbortError' || code === 'UND_ERR_ABORTED') return error as Error;
  if (code && TIMEOUT_CODES.has(code)) {
    return new UpstreamError(`${what.charAt(0).toUpperCase()}${what.slice(1)} timed out (${code}).`, {
      url,
      status: 504,
      isRetryable: code === 'UND_ERR_CONNECT_TIMEOUT',
      cause: error,
    });
  }
  return new UpstreamError(`Could not reach ${what}: ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}.`, {
    url,
    status: 502,
    isRetryable: code ? NETWORK_CODES.has(code) : false,
    cause: error,
  });
}

/**
 * An answer with status >= 400 as an UpstreamError, the same for every capability: 429 stays 429
 * (retryable, with the upstream's `retry-after`), 5xx answers 502 (retryable), 401/403 answer 502 (the
 * operator's key is wrong, not the client's), other 4xx keep their status.
 */
export function statusError(
  what: string,
  url: string,
  statusCode: number,
  body: string,
  headers: Record<string, unknown> = {},
): UpstreamError {
  const retryAfter = retryAfterMs(headers['retry-after']);
  return new UpstreamError(`${what} answered HTTP ${statusCode}: ${upstreamMessage(body)}`, {
    url,
    statusCode,
    status: statusCode === 401 || statusCode === 403 ? 502 : undefined,
    responseBody: body.slice(0, 4000),
    isRetryable: statusCode === 429 || statusCode >= 500,
    retryAfterMs: retryAfter,
  });
}

/** `retry-after` in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: unknown): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || !text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
