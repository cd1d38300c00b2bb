import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { request as undiciRequest } from 'undici';
import { bareHost, effectivePort, isAllowed, parseAllowList, type AllowEntry } from './allow-list';
import { metrics } from '../observability/metrics';
import { addressRange, isBlockedAddress } from './blocked-address';
import { EgressDeniedError, EgressRedirectError, EgressTimeoutError } from './egress-errors';
import { guardedFetch } from './guarded-fetch';
import { PinnedDispatcher } from './pinned-dispatcher';
import { readLimited, toHeaderRecord } from './read-response';
import type { EgressGuardContract, EgressRequestOptions, EgressResponse } from './types';

/** Resolves a host name to every address it has (strings or `{address, family}`). */
export type EgressResolver = (hostname: string) => Promise<ReadonlyArray<string | { address: string; family?: number }>>;

export interface EgressGuardOptions {
  /** `AGENT_EGRESS_ALLOW`: hosts, IPs or `host:port` reachable although private or loopback. Default none. */
  allow?: readonly string[];
  /** DNS resolver (tests inject one). Default: `dns.promises.lookup(host, {all: true})`. */
  lookup?: EgressResolver;
  /** Whole-request deadline when a request gives none, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Body bytes kept when a request gives no `maxBytes`. Default 10 MiB. */
  maxBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

const defaultResolver: EgressResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * The one door for outbound HTTP to user-chosen URLs. Each hop (the URL and every redirect target) is
 * parsed by the WHATWG URL parser (numeric spellings become dotted quads), must be http(s), is resolved,
 * and every resolved address must be public or allowed; the connection then goes to a checked address.
 */
export class EgressGuard implements EgressGuardContract {
  private readonly allowList: AllowEntry[];
  private readonly resolve: EgressResolver;
  private readonly dispatcher = new PinnedDispatcher();
  private readonly timeoutMs: number;
  private readonly maxBytes: number;

  constructor(options: EgressGuardOptions = {}) {
    this.allowList = parseAllowList(options.allow ?? []);
    this.resolve = options.lookup ?? defaultResolver;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  }

  /**
   * Checks `url` without sending anything: resolves after the check, with the addresses it would connect to.
   * Throws `EgressDeniedError` for a refused scheme, host or address.
   */
  async check(url: string | URL): Promise<LookupAddress[]> {
    try {
      return await this.#check(url);
    } catch (error) {
      if (error instanceof EgressDeniedError) metrics.egressBlocked.inc();
      throw error;
    }
  }

  async #check(url: string | URL): Promise<LookupAddress[]> {
    const target = typeof url === 'string' ? parseUrl(url) : url;
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new EgressDeniedError(target.href, `scheme ${target.protocol} is not http or https`);
    }
    const host = bareHost(target.hostname);
    const port = effectivePort(target);
    const hostAllowed = isAllowed(this.allowList, host, port);
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await this.lookupAll(host);
    if (addresses.length === 0) throw new Error(`egress: ${host} has no address`);
    if (!hostAllowed) {
      for (const { address } of addresses) {
        if (!isBlockedAddress(address) || this.addressAllowed(address, port)) continue;
        const via = address === host ? '' : ` resolves to ${address}, which`;
        throw new EgressDeniedError(target.href, `${host}${via} is a ${addressRange(address)} address`);
      }
    }
    // undici asks for the URL's own hostname (a trailing dot kept); pin that spelling.
    if (!isIP(host)) this.dispatcher.pin(target.hostname, addresses);
    return addresses;
  }

  async request(url: string, options: EgressRequestOptions = {}): Promise<EgressResponse> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const maxBytes = options.maxBytes ?? this.maxBytes;
    const maxRedirects = options.maxRedirects ?? 5;
    const controller = new AbortController();
    let timeoutReason: EgressTimeoutError | undefined;
    const timer = setTimeout(() => controller.abort((timeoutReason = new EgressTimeoutError(url, timeoutMs))), timeoutMs);
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let current = parseUrl(url);
      let method = (options.method ?? 'GET').toUpperCase();
      let body = options.body;
      let headers: Record<string, string> = { ...(options.headers ?? {}) };
      for (let hop = 0; ; hop++) {
        await abortable(this.check(current), controller.signal);
        const response = await undiciRequest(current, {
          method: method as 'GET',
          headers,
          body: body as string | Buffer | undefined,
          dispatcher: this.dispatcher.agent,
          signal: controller.signal,
        });
        const location = response.headers.location;
        if (REDIRECTS.has(response.statusCode) && typeof location === 'string' && maxRedirects > 0) {
          await response.body.dump();
          if (hop >= maxRedirects) throw new EgressRedirectError(url, maxRedirects);
          const next = new URL(location, current);
          if (response.statusCode === 303 || (response.statusCode <= 302 && method === 'POST')) {
            method = 'GET';
            body = undefined;
            headers = withoutHeaders(headers, ['content-type', 'content-length']);
          }
          if (next.origin !== current.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
          current = next;
          continue;
        }
        const read = await readLimited(response.body, maxBytes);
        const result: EgressResponse = {
          status: response.statusCode,
          headers: toHeaderRecord(response.headers),
          url: current.href,
          body: read.body,
          truncated: read.truncated,
          text: () => read.body.toString('utf8'),
        };
        return result;
      }
    } catch (error) {
      if (timeoutReason && controller.signal.reason === timeoutReason) throw timeoutReason;
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A streaming WHATWG `fetch` through the guard (for SDKs that take a `fetch`, such as MCP transports):
   * every hop checked and pinned as in `request`, the body left as a stream, no whole-request deadline
   * (the caller's `signal` ends it).
   */
  readonly fetch = (input: string | URL, init?: RequestInit): Promise<Response> =>
    guardedFetch(
      {
        check: (url, signal) => (signal ? abortable(this.check(url), signal) : this.check(url)),
        agent: this.dispatcher.agent,
        maxRedirects: 5,
      },
      input,
      init,
    );

  /** Closes pooled connections. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async lookupAll(host: string): Promise<LookupAddress[]> {
    const found = await this.resolve(host);
    return found.map((entry) => {
      const address = typeof entry === 'string' ? entry : entry.address;
      return { address, family: isIP(address) || (typeof entry === 'string' ? 4 : (entry.family ?? 4)) };
    });
  }

  private addressAllowed(address: string, port: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const spellings = [ipaddr.parse(address).toString(), ipaddr.process(address).toString()];
    return spellings.some((spelling) => isAllowed(this.allowList, spelling, port));
  }
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new EgressDeniedError(url, 'not a valid absolute URL');
  }
}

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

/** Rejects as soon as `signal` aborts (DNS lookups cannot be cancelled, but the caller need not wait). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
