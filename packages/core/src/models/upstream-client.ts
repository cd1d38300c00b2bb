import { Pool } from 'undici';
import { UpstreamError } from '../errors';
import { type OutboundBody, openRequest, transportError } from '../transport';
import { injectTraceHeaders, tracer } from '../observability/tracing';

/** Options of one provider's HTTP client. */
export interface UpstreamClientOptions {
  /** Provider base URL including its path prefix, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Name used in error messages, e.g. the vendor. */
  name: string;
  /** Headers sent with every request (authentication, API version). */
  headers?: Record<string, string>;
  /** Time to wait for response headers, and the longest silence between body chunks, in ms. Default 120000 (`FATHOM_MODEL_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Most kept-alive connections per provider; default unlimited (`FATHOM_MODEL_CONNECTIONS`). */
  connections?: number;
  /** Most bytes of one answer (a completion, a stream, an embeddings list); default 128 MiB. Past it: 502. */
  maxBodyBytes?: number;
}

/** Default bound of one provider answer: far above any completion, and above 2048 embeddings of 3072 floats as JSON. */
export const MODEL_MAX_BODY_BYTES = 128 * 1024 * 1024;

export interface UpstreamResponse {
  statusCode: number;
  body: OutboundBody;
}

/** The message an upstream error body carries. */
export { upstreamMessage } from '../transport';

/** Converts a transport failure into an UpstreamError (timeouts 504, other network failures 502). */
export function toUpstreamError(error: unknown, name: string, url: string): Error {
  return transportError(error, `provider '${name}'`, url);
}

/**
 * One provider's HTTP client over the one outbound request function (`transport/request.ts`): a
 * kept-alive undici Pool, JSON requests, a bounded answer, upstream errors mapped to UpstreamError
 * (429 stays 429, 5xx -> 502, 401/403 -> 502, timeouts -> 504), and exactly one retry for a network
 * failure that happened before any response byte arrived (a model call is not repeated once answered).
 */
export class UpstreamClient {
  readonly name: string;
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly origin: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;

  constructor(options: UpstreamClientOptions) {
    const url = new URL(options.baseUrl);
    this.name = options.name;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
    const timeout = options.timeoutMs ?? 120_000;
    this.timeoutMs = timeout;
    this.maxBodyBytes = options.maxBodyBytes ?? MODEL_MAX_BODY_BYTES;
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? null,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
  }
  /** The headers of a call: the configured ones, plus `traceparent` of the active span when tracing (W3C trace context). */
  #headers(): Record<string, string> {
    if (!tracer.enabled) return this.headers;
    const headers = { ...this.headers };
    injectTraceHeaders(headers);
    return headers;
  }

  /** Sends a request and returns the response once its status is 2xx; throws UpstreamError otherwise. */
  async request(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<UpstreamResponse> {
    const response = await openRequest({
      url: `${this.origin}${this.basePath}${path}`,
      method,
      headers: this.#headers(),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
      what: `Provider '${this.name}'`,
      timeoutMs: this.timeoutMs,
      maxBodyBytes: this.maxBodyBytes,
      dispatcher: this.pool,
      retry: {
        maxRetries: 1,
        initialDelayMs: 0,
        isRetryable: (error) => error instanceof UpstreamError && error.isRetryable && error.statusCode === undefined,
      },
    });
    return { statusCode: response.status, body: response.body };
  }

  /** POST/GET returning the parsed JSON body. */
  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await this.request(method, path, body, signal);
    return response.body.json<T>();
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
