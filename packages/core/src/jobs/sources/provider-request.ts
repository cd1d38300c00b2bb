import { request as undiciRequest } from 'undici';
import { UpstreamError } from '../../errors';
import { statusError, transportError } from '../../transport';

export interface ProviderRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON when an object. */
  json?: unknown;
  body?: string;
  signal?: AbortSignal;
  /** Description used in error messages, e.g. `Apify`. */
  provider: string;
}

/**
 * Calls an operator-configured provider (trusted, so not through the egress guard) and parses JSON,
 * with `fetchImpl` when one was injected, else undici's `request`.
 * A status of 400 or more throws `UpstreamError` carrying what the provider said.
 */
export async function providerJson<T = unknown>(fetchImpl: typeof fetch | undefined, url: string, request: ProviderRequest): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body = request.body;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  const method = request.method ?? (body ? 'POST' : 'GET');
  let status: number;
  let text: string;
  let headers_: Record<string, unknown> = {};
  try {
    if (fetchImpl) {
      const response = await fetchImpl(url, { method, headers, body, signal: request.signal });
      status = response.status;
      headers_ = Object.fromEntries(response.headers.entries());
      text = await response.text();
    } else {
      // undici's request: the same client as fetch without the WHATWG stream layers (several times cheaper per call).
      const response = await undiciRequest(url, { method: method as 'GET', headers, body, signal: request.signal });
      status = response.statusCode;
      headers_ = response.headers;
      text = await response.body.text();
    }
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason ?? error;
    throw transportError(error, request.provider, redact(url));
  }
  if (status < 200 || status >= 300) throw statusError(request.provider, redact(url), status, text, headers_);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new UpstreamError(`${request.provider} answered with invalid JSON: ${text.slice(0, 200)}`, {
      url: redact(url),
      code: 'provider_error',
      status: 502,
    });
  }
}

/** Removes secrets from query strings before a URL enters an error message. */
function redact(url: string): string {
  return url.replace(/([?&](token|key|api_key|access_token)=)[^&]*/gi, '$1***');
}

/** Waits `ms` or rejects when `signal` aborts. */
export { delay as sleep } from '../../transport';
