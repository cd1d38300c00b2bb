import { Pool } from 'undici';
import { UpstreamError } from '../errors';

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

/** The message an upstream error body carries (OpenAI `{error: {message}}`, Anthropic `{type: "error", error: {message}}`). */
export function upstreamMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as any;
    const message = parsed?.error?.message ?? parsed?.message ?? (typeof parsed?.error === 'string' ? parsed.error : undefined);
    if (typeof message === 'string' && message) return message;
  } catch {
    // not JSON: use the text
  }
  return body.slice(0, 500) || 'no error body';
}

/** Converts a transport failure into an UpstreamError: timeouts answer 504, other network failures 502 (retryable). */
export function toUpstreamError(error: unknown, name: string, url: string): Error {
  if (error instanceof UpstreamError) return error;
  const code = errorCode(error);
  if ((error as Error)?.name === 'AbortError' || code === 'UND_ERR_ABORTED') return error as Error;
  if (code && TIMEOUT_CODES.has(code)) {
    return new UpstreamError(`Provider '${name}' timed out (${code}).`, {
      url,
      status: 504,
      isRetryable: code === 'UND_ERR_CONNECT_TIMEOUT',
      cause: error,
    });
  }
  return new UpstreamError(
    `Could not reach provider '${name}': ${(error as Error)?.message ?? String(error)}${code ? ` (${code})` : ''}.`,
    {
      url,
      status: 502,
      isRetryable: code ? NETWORK_CODES.has(code) : false,
      cause: error,
    },
  );
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

  /** Sends a request and returns the response once its status is 2xx; throws UpstreamError otherwise. */
  async request(method: 'GET' | 'POST', path: string, body: unknown, signal?: AbortSignal): Promise<UpstreamResponse> {
    const url = `${this.origin}${this.basePath}${path}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      let response: Awaited<ReturnType<Pool['request']>>;
      try {
        response = await this.pool.request({ method, path: `${this.basePath}${path}`, headers: this.headers, body: payload, signal });
      } catch (error) {
        const mapped = toUpstreamError(error, this.name, url);
        if (attempt === 1 && mapped instanceof UpstreamError && mapped.isRetryable && !signal?.aborted) continue;
        throw mapped;
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return response as unknown as UpstreamResponse;
      const text = await response.body.text().catch(() => '');
      const statusCode = response.statusCode;
      const status = statusCode === 401 || statusCode === 403 ? 502 : undefined;
      throw new UpstreamError(`Provider '${this.name}' answered ${statusCode}: ${upstreamMessage(text)}`, {
        url,
        statusCode,
        status,
        responseBody: text,
        isRetryable: statusCode === 429 || statusCode >= 500,
      });
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
