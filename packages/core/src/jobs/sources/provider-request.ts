import { UpstreamError } from '../../errors';
import { requestJson } from '../../transport';

export interface ProviderRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON when an object. */
  json?: unknown;
  body?: string;
  signal?: AbortSignal;
  /** Description used in error messages, e.g. `Apify`. */
  provider: string;
  /** Longest wait for the headers and longest silence in the body, ms; default 30 000. Past it: 504. */
  timeoutMs?: number;
  /** Most bytes of the answer; default 16 MiB. Past it: 502. */
  maxBodyBytes?: number;
}

/** Default per-request timeout of a data provider call (the job's own deadline, `FATHOM_TOOLS_JOB_TIMEOUT_MS`, still bounds the whole job). */
export const PROVIDER_TIMEOUT_MS = 30_000;
/** Default bound of one data provider answer. */
export const PROVIDER_MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Calls an operator-configured provider (trusted, so not through the egress guard) and parses JSON,
 * through the one outbound request function: a timeout, a bounded read, and the one error mapping.
 * Reads (GET) are retried with backoff on 429, 5xx and refused connections; a POST only on 429 or a
 * refused connection (the provider did not do the work), so a job is never run twice upstream.
 * `fetchImpl`, when injected (tests, proxies), sends the request instead of undici.
 */
export async function providerJson<T = unknown>(fetchImpl: typeof fetch | undefined, url: string, request: ProviderRequest): Promise<T> {
  const method = request.method ?? (request.body !== undefined || request.json !== undefined ? 'POST' : 'GET');
  return requestJson<T>({
    url,
    method,
    headers: { accept: 'application/json', ...request.headers },
    json: request.json,
    body: request.body,
    signal: request.signal,
    what: request.provider,
    displayUrl: redact(url),
    timeoutMs: request.timeoutMs ?? PROVIDER_TIMEOUT_MS,
    maxBodyBytes: request.maxBodyBytes ?? PROVIDER_MAX_BODY_BYTES,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    retry: method === 'GET' ? {} : { isRetryable: notProcessed },
  });
}

/** A failure after which the provider certainly did not do the work: 429, or no connection at all. */
function notProcessed(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.statusCode === 429) return true;
  const cause = error.cause as { code?: string; cause?: { code?: string } } | undefined;
  const code = cause?.code ?? cause?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

/** Removes secrets from query strings before a URL enters an error message. */
function redact(url: string): string {
  return url.replace(/([?&](token|key|api_key|access_token)=)[^&]*/gi, '$1***');
}

/** Waits `ms` or rejects when `signal` aborts. */
export { delay as sleep } from '../../transport';
