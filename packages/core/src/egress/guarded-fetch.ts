import { type RequestInit as UndiciRequestInit, fetch as undiciFetch } from 'undici';
import type { Agent } from 'undici';
import { EgressDeniedError, EgressRedirectError } from './egress-errors';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** What the guard lends a streaming fetch: its check of one hop and its pinned connection pool. */
export interface GuardedFetchDeps {
  check(url: URL, signal?: AbortSignal | null): Promise<unknown>;
  agent: Agent;
  maxRedirects: number;
}

/**
 * A WHATWG `fetch` whose every hop goes through the egress guard: the URL and each redirect target are
 * checked (and their addresses pinned) before a connection opens, and the body is returned as a stream
 * (SSE and Streamable HTTP answers are long-lived). Redirects are followed here, never by undici, so a
 * redirect to a private address is refused; credentials are dropped when a redirect leaves the origin.
 * `redirect: 'manual'` returns the 3xx as it is, `redirect: 'error'` throws on one.
 */
export async function guardedFetch(deps: GuardedFetchDeps, input: string | URL, init: RequestInit = {}): Promise<Response> {
  let current = toUrl(input);
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  const headers = new Headers(init.headers);
  for (let hop = 0; ; hop++) {
    await deps.check(current, init.signal);
    const response = await undiciFetch(current, {
      ...(init as UndiciRequestInit),
      method,
      body: body as UndiciRequestInit['body'],
      headers: [...headers.entries()],
      redirect: 'manual',
      dispatcher: deps.agent,
    });
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || !location || init.redirect === 'manual') return response as unknown as Response;
    await response.body?.cancel();
    if (init.redirect === 'error') throw new EgressRedirectError(current.href, 0);
    if (hop >= deps.maxRedirects) throw new EgressRedirectError(toUrl(input).href, deps.maxRedirects);
    const next = new URL(location, current);
    if (response.status === 303 || (response.status <= 302 && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
      headers.delete('content-length');
    }
    if (next.origin !== current.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    current = next;
  }
}

function toUrl(input: string | URL): URL {
  try {
    return new URL(input);
  } catch {
    throw new EgressDeniedError(String(input), 'not a valid absolute URL');
  }
}
