import { UpstreamError } from '../../errors';
import type { ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { normaliseItem } from './normalise-item';
import { providerJson, sleep } from './provider-request';

export interface ApifySourceOptions {
  /** `FATHOM_TOOLS_APIFY_TOKEN` (or `APIFY_TOKEN`): the API token, sent as a bearer header. */
  token: string;
  /** Actor id per tool (`FATHOM_TOOLS_<TOOL>_APIFY_ACTOR`), e.g. `{ 'pronet-profile': 'someone~profile-search' }`. */
  actors: Record<string, string>;
  /** `FATHOM_TOOLS_APIFY_URL`, default `https://api.apify.com`. */
  baseURL?: string;
  /** `FATHOM_TOOLS_APIFY_POLL_MS`: run status polling interval in milliseconds; default 2000. */
  pollMs?: number;
  /** `FATHOM_TOOLS_APIFY_COST_MULTIPLIER`: currency units billed per USD of run usage; default 1. */
  costMultiplier?: number;
  /** A `fetch` to use instead of undici's request (tests, proxies). */
  fetch?: typeof fetch;
}

const TERMINAL = new Set(['SUCCEEDED', 'FAILED', 'ABORTED', 'TIMED-OUT']);

/**
 * Runs an Apify actor per tool: starts the run with the tool input (plus `maxItems` = `limit`), polls
 * the run until it is terminal, reads its default dataset, and bills the run's `usageTotalUsd`.
 * A run aborted by the job timeout is aborted on Apify too.
 */
export class ApifySource implements ToolSource {
  readonly name = 'apify';
  readonly #options: Required<Omit<ApifySourceOptions, 'fetch'>> & { fetch?: typeof fetch };

  constructor(options: ApifySourceOptions) {
    if (!options.token) throw new Error('ApifySource needs a token (FATHOM_TOOLS_APIFY_TOKEN).');
    this.#options = {
      baseURL: (options.baseURL ?? 'https://api.apify.com').replace(/\/+$/, ''),
      pollMs: options.pollMs ?? 2000,
      costMultiplier: options.costMultiplier ?? 1,
      fetch: options.fetch,
      token: options.token,
      actors: options.actors,
    };
  }

  async run({ tool, input, signal }: ToolRunOptions): Promise<ToolOutput> {
    const { baseURL, token, pollMs, costMultiplier } = this.#options;
    const actor = this.#options.actors[tool];
    if (!actor) throw new UpstreamError(`No Apify actor is configured for '${tool}'.`, { code: 'tool_unavailable' });
    const call = <T>(path: string, init: { method?: 'GET' | 'POST'; json?: unknown; signal?: AbortSignal } = {}) =>
      providerJson<T>(this.#options.fetch, `${baseURL}${path}`, {
        signal,
        ...init,
        provider: 'Apify',
        headers: { authorization: `Bearer ${token}` },
      });

    const actorInput = typeof input.limit === 'number' ? { ...input, maxItems: input.limit } : input;
    const started = await call<{ data: ApifyRun }>(`/v2/acts/${encodeURIComponent(actor.replace('/', '~'))}/runs`, {
      method: 'POST',
      json: actorInput,
    });
    let run = started.data;
    // The job's signal has fired by then, so the abort call gets its own short deadline.
    const abortRun = () =>
      void call(`/v2/actor-runs/${run.id}/abort`, { method: 'POST', signal: AbortSignal.timeout(10_000) }).catch(() => {});
    try {
      while (!TERMINAL.has(run.status)) {
        await sleep(pollMs, signal);
        run = (await call<{ data: ApifyRun }>(`/v2/actor-runs/${run.id}`)).data;
      }
    } catch (error) {
      if (signal.aborted) abortRun();
      throw error;
    }
    if (run.status !== 'SUCCEEDED') {
      throw new UpstreamError(`The Apify run ${run.id} ended ${run.status}${run.statusMessage ? `: ${run.statusMessage}` : ''}.`, {
        code: 'provider_error',
      });
    }
    const limit = typeof input.limit === 'number' ? `&limit=${input.limit}` : '';
    const records = await call<unknown[]>(`/v2/datasets/${run.defaultDatasetId}/items?clean=true&format=json${limit}`);
    if (!Array.isArray(records)) throw new UpstreamError('The Apify dataset answer is not a JSON array.', { code: 'provider_error' });
    const cost = (Number(run.usageTotalUsd) || 0) * costMultiplier;
    return { items: records.map((record) => normaliseItem(tool, record)), cost, details: { provider: 'apify', run_id: run.id } };
  }
}

interface ApifyRun {
  id: string;
  status: string;
  statusMessage?: string;
  defaultDatasetId: string;
  usageTotalUsd?: number;
}
