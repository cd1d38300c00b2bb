/** Options of every Fathom error: a stable `code`, the HTTP `status` it maps to, and the offending `param`. */
export interface FathomErrorOptions {
  code: string;
  status: number;
  /** OpenAI error `type`; defaults from the status (e.g. 400 -> `invalid_request_error`). */
  type?: string;
  param?: string | null;
  cause?: unknown;
  /** HTTP headers the answer carries (`retry-after`, `x-should-retry`, rate-limit headers). */
  headers?: Record<string, string>;
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_balance',
  403: 'permission_error',
  404: 'invalid_request_error',
  409: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
  502: 'api_error',
  503: 'api_error',
  504: 'api_error',
};

/** Base class of every error Fathom raises on purpose. `packages/http` maps it to the OpenAI envelope. */
export class FathomError extends Error {
  readonly code: string;
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly headers?: Record<string, string>;

  constructor(message: string, options: FathomErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
    this.type = options.type ?? TYPE_BY_STATUS[options.status] ?? 'api_error';
    this.param = options.param ?? null;
    if (options.headers) this.headers = options.headers;
  }

  static isFathomError(error: unknown): error is FathomError {
    return error instanceof FathomError;
  }

  /** The OpenAI error body: `{error: {message, type, param, code}}`. */
  toJSON(): { error: { message: string; type: string; param: string | null; code: string } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}
