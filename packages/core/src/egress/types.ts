/** Options of one outbound request to a user-chosen URL. */
export interface EgressRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole-request deadline in milliseconds (connect + redirects + body). */
  timeoutMs?: number;
  /** Redirect hops followed manually, each re-checked; default 5, 0 = return the 3xx. */
  maxRedirects?: number;
  /** Stop reading the body after this many bytes (the response is marked `truncated`). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  headers: Record<string, string>;
  /** Final URL after redirects. */
  url: string;
  body: Buffer;
  truncated: boolean;
  text(): string;
}

/**
 * The one door for outbound HTTP to user-chosen URLs (Webhook routes, website crawls, nl-data pages).
 * Refuses private, loopback, link-local, CGNAT, unique-local, metadata and unspecified addresses after
 * DNS resolution and on every redirect hop, connecting to the address it checked, unless allowed.
 * A refusal throws `EgressDeniedError` (code `destination_not_allowed`).
 */
export interface EgressGuardContract {
  request(url: string, options?: EgressRequestOptions): Promise<EgressResponse>;
}
