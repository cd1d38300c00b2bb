import { type Dispatcher, request as undiciRequest } from 'undici';
import { UpstreamError } from '../errors';
import { type RetryOptions, retryWithBackoff } from './retry';
import { statusError, transportError } from './upstream-errors';

/** Default longest wait for response headers, and longest silence between two body chunks, ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Default most bytes of an answer read before the call fails (16 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most bytes of an error answer kept for its message (the rest is not read). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** One outbound HTTP call to an upstream (a model provider, the embeddings service, a data provider, the search service). */
export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON (with `content-type: application/json`) when given. */
  json?: unknown;
  body?: string;
  signal?: AbortSignal;
  /** Who is called, as error messages name it: `The embedding service at …`, `Provider 'openai'`. */
  what: string;
  /** The URL as error messages show it (secrets removed); default `url`. */
  displayUrl?: string;
  /** Longest wait for response headers, and longest silence between body chunks, ms; default 60 000. Past it: 504. */
  timeoutMs?: number;
  /** Most bytes of the answer read; a longer answer fails with 502 and the connection is closed. Default 16 MiB. */
  maxBodyBytes?: number;
  /**
   * Retries with exponential backoff, honouring `retry-after` (default: 2 retries of retryable failures:
   * 429, 5xx, refused or reset connections); `false` for one attempt.
   */
  retry?: Omit<RetryOptions, 'signal'> | false;
  /** undici dispatcher to send through (a provider's kept-alive Pool, a proxy agent). */
  dispatcher?: Dispatcher;
  /** A WHATWG `fetch` to send through instead (the egress guard's `fetch` for user-chosen URLs, tests). */
  fetch?: typeof fetch;
}

/** An answer's body as it arrives: each chunk counts against `maxBodyBytes` and the silence timeout. */
export interface OutboundBody extends AsyncIterable<Uint8Array> {
  /** The whole body as text (bounded). */
  text(): Promise<string>;
  /** The whole body parsed as JSON (bounded); 502 when it is not JSON. */
  json<T = unknown>(): Promise<T>;
}

export interface OutboundResponse {
  /** Always 2xx: other statuses throw `UpstreamError`. */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: OutboundBody;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: AsyncIterable<Uint8Array>;
  /** Re-arms the silence timer (fetch path); undici keeps its own. */
  waiting?: (armed: boolean) => void;
}

function timeoutError(code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT', ms: number): Error {
  return Object.assign(new Error(`no answer for ${ms} ms`), { code });
}

/** A WHATWG body's chunks; leaving early cancels the body (closing its connection). */
async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function sendWithFetch(request: OutboundRequest, body: string | undefined, headers: Record<string, string>): Promise<RawResponse> {
  const timeout = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const signal = request.signal ? AbortSignal.any([controller.signal, request.signal]) : controller.signal;
  let timer: NodeJS.Timeout | undefined;
  const arm = (code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT') => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(timeoutError(code, timeout)), timeout);
  };
  arm('UND_ERR_HEADERS_TIMEOUT');
  try {
    const response = await request.fetch!(request.url, { method: request.method, headers, body, signal });
    clearTimeout(timer);
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      chunks: chunksOf(response.body),
      waiting: (armed) => (armed ? arm('UND_ERR_BODY_TIMEOUT') : clearTimeout(timer)),
    };
  } catch (error) {
    clearTimeout(timer);
    throw controller.signal.aborted && !request.signal?.aborted ? controller.signal.reason : error;
  }
}

async function sendWithUndici(request: OutboundRequest, body: string | undefined, headers: Record<string, string>): Promise<RawResponse> {
  const timeout = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const response = await undiciRequest(request.url, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    signal: request.signal,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    dispatcher: request.dispatcher,
  });
  return { status: response.statusCode, headers: response.headers, chunks: response.body };
}

/** The chunks of an answer, failing (and closing the connection) past `max` bytes; transport failures mapped. */
async function* bounded(raw: RawResponse, request: OutboundRequest, max: number, url: string): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  const iterator = raw.chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      raw.waiting?.(true);
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        throw transportError(error, request.what, url);
      } finally {
        raw.waiting?.(false);
      }
      if (next.done) return;
      bytes += next.value.byteLength;
      if (bytes > max) {
        throw new UpstreamError(`${request.what} answered more than ${max} bytes; the answer was not read further.`, {
          url,
          status: 502,
          code: 'upstream_response_too_large',
        });
      }
      yield next.value;
    }
  } finally {
    // Stopping early (too large, the consumer left, an error) closes the answer's connection.
    await iterator.return?.().catch(() => undefined);
  }
}

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** At most `max` bytes of an error answer, as text; never fails. */
async function readErrorBody(raw: RawResponse, max: number): Promise<string> {
  const parts: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of raw.chunks) {
      parts.push(chunk);
      bytes += chunk.byteLength;
      if (bytes >= max) break;
    }
  } catch {
    // What arrived is enough for the message.
  } finally {
    raw.waiting?.(false);
  }
  return Buffer.concat(parts).toString('utf8').slice(0, max);
}

function bodyOf(raw: RawResponse, request: OutboundRequest, url: string): OutboundBody {
  const chunks = bounded(raw, request, request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, url);
  const text = () => readAll(chunks);
  return {
    [Symbol.asyncIterator]: () => chunks,
    text,
    async json<T>() {
      const value = await text();
      try {
        return JSON.parse(value) as T;
      } catch {
        throw new UpstreamError(`${request.what} answered with invalid JSON: ${value.slice(0, 200)}`, {
          url,
          status: 502,
          responseBody: value.slice(0, 2000),
        });
      }
    },
  };
}

async function attempt(request: OutboundRequest): Promise<OutboundResponse> {
  const url = request.displayUrl ?? request.url;
  const headers: Record<string, string> = { ...request.headers };
  let body = request.body;
  if (request.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(request.json);
  }
  request.signal?.throwIfAborted();
  let raw: RawResponse;
  try {
    raw = request.fetch ? await sendWithFetch(request, body, headers) : await sendWithUndici(request, body, headers);
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason ?? error;
    throw transportError(error, request.what, url);
  }
  if (raw.status < 200 || raw.status >= 300) {
    const text = await readErrorBody(raw, Math.min(MAX_ERROR_BODY_BYTES, request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));
    throw statusError(request.what, url, raw.status, text, raw.headers);
  }
  return { status: raw.status, headers: raw.headers, body: bodyOf(raw, request, url) };
}

/**
 * Sends one request and returns its 2xx answer with the body still to read (streams), the same way for
 * every capability: a timeout for the headers and for every silence in the body (504), a bound on the
 * bytes read (502), retries of retryable failures with backoff honouring `retry-after`, and one mapping
 * of failures (`statusError`, `transportError`). An abort of `signal` passes through unchanged.
 */
export function openRequest(request: OutboundRequest): Promise<OutboundResponse> {
  if (request.retry === false) return attempt(request);
  return retryWithBackoff(() => attempt(request), { ...request.retry, signal: request.signal });
}

/** `openRequest` and the whole (bounded) body parsed as JSON; a body that fails mid-read is retried like a failed call. */
export function requestJson<T = unknown>(request: OutboundRequest): Promise<T> {
  const once = async () => (await attempt(request)).body.json<T>();
  if (request.retry === false) return once();
  return retryWithBackoff(once, { ...request.retry, signal: request.signal });
}

/** `openRequest` and the whole (bounded) body as text. */
export function requestText(request: OutboundRequest): Promise<{ status: number; headers: OutboundResponse['headers']; text: string }> {
  const once = async () => {
    const response = await attempt(request);
    return { status: response.status, headers: response.headers, text: await response.body.text() };
  };
  if (request.retry === false) return once();
  return retryWithBackoff(once, { ...request.retry, signal: request.signal });
}
