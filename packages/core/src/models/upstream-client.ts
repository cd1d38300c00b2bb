import { Pool } from 'undici';
import { UpstreamError } from '../errors';
import { statusError, transportError } from '../transport';
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
}

export interface UpstreamResponse {
  statusCode: number;
  body: AsyncIterable<Uint8Array> & { json(): Promise<unknown>; text(): Promise<string> };
}

/** The message an upstream error body carries. */
export { upstreamMessage } from '../transport';

/** Converts a transport failure into an UpstreamError (timeouts 504, other network failures 502). */
export function toUpstreamError(error: unknown, name: string, url: string): Error {
  return transportError(error, `provider '${name}'`, url);
}

/**
 * One provider's HTTP client: a kept-alive undici Pool, JSON requests, upstream errors mapped to
 * UpstreamError (429 stays 429, 5xx -> 502, 401/403 -> 502, timeouts -> 504), and exactly one retry
 * for a network failure that happened before any response byte arrived.
 */
export class UpstreamClient {
  readonly name: string;
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly origin: string;
  private readonly headers: Record<string, string>;

  constructor(options: UpstreamClientOptions) {
    const url = new URL(options.baseUrl);
    this.name = options.name;
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
    const timeout = options.timeoutMs ?? 120_000;
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
    const url = `${this.origin}${this.basePath}${path}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      let response: Awaited<ReturnType<Pool['request']>>;
      try {
        response = await this.pool.request({ method, path: `${this.basePath}${path}`, headers: this.#headers(), body: payload, signal });
      } catch (error) {
        const mapped = toUpstreamError(error, this.name, url);
        if (attempt === 1 && mapped instanceof UpstreamError && mapped.isRetryable && !signal?.aborted) continue;
        throw mapped;
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return response as unknown as UpstreamResponse;
      const text = await response.body.text().catch(() => '');
      throw statusError(`Provider '${this.name}'`, url, response.statusCode, text, response.headers);
    }
  }

  /** POST/GET returning the parsed JSON body. */
  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await this.request(method, path, body, signal);
    try {
      return (await response.body.json()) as T;
    } catch (error) {
      throw toUpstreamError(error, this.name, path);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
