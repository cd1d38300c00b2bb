import { UpstreamError } from '../../errors';
import type { ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { normaliseItem } from './normalise-item';
import { providerJson } from './provider-request';

export interface HttpSourceOptions {
  /** `FATHOM_TOOLS_<TOOL>_URL`: the endpoint the input is POSTed to. */
  url: string;
  /** `FATHOM_TOOLS_<TOOL>_TOKEN`: sent as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** `FATHOM_TOOLS_<TOOL>_PRICE_PER_ITEM`: cost per item when the answer carries no `cost`; default 0.01. */
  pricePerItem?: number;
  /** A `fetch` to use instead of undici's request (tests, proxies). */
  fetch?: typeof fetch;
}

/**
 * A user's own provider: POSTs `{tool, input}` as JSON to a configured URL and reads
 * `{items: [...], cost?}` (or a bare array of items). `cost` in the answer wins over the per-item price.
 */
export class HttpSource implements ToolSource {
  readonly name = 'http';
  readonly #options: HttpSourceOptions;

  constructor(options: HttpSourceOptions) {
    if (!options.url) throw new Error('HttpSource needs a url.');
    this.#options = options;
  }

  async run({ tool, input, signal }: ToolRunOptions): Promise<ToolOutput> {
    const headers: Record<string, string> = this.#options.token ? { authorization: `Bearer ${this.#options.token}` } : {};
    const answer = await providerJson<unknown>(this.#options.fetch, this.#options.url, {
      method: 'POST',
      json: { tool, input },
      headers,
      signal,
      provider: `The provider of '${tool}'`,
    });
    const records = Array.isArray(answer) ? answer : (answer as { items?: unknown })?.items;
    if (!Array.isArray(records)) {
      throw new UpstreamError(`The provider of '${tool}' answered without an 'items' array.`, { code: 'provider_error' });
    }
    const declared = Array.isArray(answer) ? undefined : Number((answer as { cost?: unknown }).cost);
    const cost = declared !== undefined && Number.isFinite(declared) ? declared : records.length * (this.#options.pricePerItem ?? 0.01);
    return { items: records.map((record) => normaliseItem(tool, record)), cost };
  }
}
