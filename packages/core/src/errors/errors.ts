import { FathomError } from './fathom-error';

/** 400: a request field is missing or invalid. The message names each offending field. */
export class InvalidRequestError extends FathomError {
  constructor(message: string, param: string | null = null, code = 'invalid_request_error') {
    super(message, { code, status: 400, param });
  }
}

/** 401: missing or unknown API key. */
export class AuthenticationError extends FathomError {
  constructor(message = 'Incorrect or missing API key. Send it as "Authorization: Bearer <API_KEY>".') {
    super(message, { code: 'invalid_api_key', status: 401 });
  }
}

/** 402: the account balance cannot cover the amount to reserve. */
export class InsufficientBalanceError extends FathomError {
  constructor(message: string) {
    super(message, { code: 'insufficient_balance', status: 402 });
  }
}

/** 404: missing resource, or one that belongs to another account (indistinguishable on purpose). */
export class NotFoundError extends FathomError {
  constructor(kind: string, id: string, param: string | null = null) {
    // An id can be as long as a URL; the message quotes the first 100 characters of it.
    const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
    super(`No ${kind} found with id '${shown}'.`, { code: 'not_found', status: 404, param });
  }
}

/** 409: the resource is in a state that does not allow the operation. */
export class ConflictError extends FathomError {
  constructor(message: string, code = 'conflict') {
    super(message, { code, status: 409 });
  }
}

/** 413: an upload exceeds the size limit. */
export class FileTooLargeError extends FathomError {
  constructor(limitBytes: number) {
    // MB as the spec counts them (1,000,000 bytes), with the exact byte count.
    super(`File exceeds the maximum size of ${limitBytes / 1_000_000} MB (${limitBytes.toLocaleString('en-US')} bytes).`, {
      code: 'file_too_large',
      status: 413,
      param: 'file',
    });
  }
}

/** 429: rate limited (locally or by an upstream). */
export class RateLimitError extends FathomError {
  constructor(message: string) {
    super(message, { code: 'rate_limit_exceeded', status: 429 });
  }
}

/** 503: a capability is not configured on this installation. */
export class ServiceUnavailableError extends FathomError {
  constructor(message: string, code = 'service_unavailable') {
    super(message, { code, status: 503 });
  }
}

/** Options of an error raised by an upstream HTTP API (model provider, data source). */
export interface UpstreamErrorOptions {
  url?: string;
  statusCode?: number;
  responseBody?: string;
  isRetryable?: boolean;
  cause?: unknown;
  /** Status to answer our client with; defaults from `statusCode` (429 stays 429, 5xx -> 502, timeout -> 504). */
  status?: number;
  code?: string;
  /** How long the upstream asked to wait before a retry (`retry-after`), ms. */
  retryAfterMs?: number;
}

/** An upstream API failed. Carries what the upstream said so the client sees the real reason. */
export class UpstreamError extends FathomError {
  readonly url?: string;
  readonly statusCode?: number;
  readonly responseBody?: string;
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, options: UpstreamErrorOptions = {}) {
    const statusCode = options.statusCode;
    const status = options.status ?? (statusCode === undefined ? 502 : statusCode >= 500 ? 502 : statusCode);
    super(message, {
      code: options.code ?? (status === 429 ? 'rate_limit_exceeded' : status === 504 ? 'timeout' : 'upstream_error'),
      status,
      cause: options.cause,
    });
    this.url = options.url;
    this.statusCode = statusCode;
    this.responseBody = options.responseBody;
    this.isRetryable = options.isRetryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}
