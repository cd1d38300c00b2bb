import { FathomError } from '../errors';

/** 403: the destination is (or redirects to, or resolves to) an address outbound calls may not reach. */
export class EgressDeniedError extends FathomError {
  /** The URL that was refused (the redirect hop, when a redirect led there). */
  readonly url: string;

  constructor(url: string, reason: string) {
    super(`Destination not allowed: ${reason}.`, { code: 'destination_not_allowed', status: 403 });
    this.url = url;
  }
}

/** 504: the whole request (connect, redirects, body) exceeded its deadline. */
export class EgressTimeoutError extends FathomError {
  constructor(url: string, timeoutMs: number) {
    super(`Request to ${url} timed out after ${timeoutMs} ms.`, { code: 'egress_timeout', status: 504 });
  }
}

/** 502: the destination answered with more redirects than allowed. */
export class EgressRedirectError extends FathomError {
  constructor(url: string, maxRedirects: number) {
    super(`Too many redirects (more than ${maxRedirects}) from ${url}.`, { code: 'too_many_redirects', status: 502 });
  }
}
