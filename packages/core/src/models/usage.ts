import type { LatencyStore } from './latency-store';
import type { UsageStore } from './usage-store';
import type { LatencyListParams, LatencyPage } from './wire/latency';
import type { UsageGroupsPage, UsageListParams, UsagePage } from './wire/usage';

/** The grouped view of an account's model calls (the spend capability's call log). */
export type UsageGroups = (accountId: string, params: UsageListParams) => Promise<UsageGroupsPage>;

/**
 * `fathom.usage` (Fathom's own): an account's token usage per UTC day and model, counted on every model
 * call of every capability (the gateway routes, assistant runs, Responses, agents, data tools).
 */
export class Usage {
  readonly #store: Pick<UsageStore, 'list'>;
  readonly #groups: UsageGroups | undefined;
  readonly #latency: Pick<LatencyStore, 'list'> | undefined;

  constructor(store: Pick<UsageStore, 'list'>, groups?: UsageGroups, latency?: Pick<LatencyStore, 'list'>) {
    this.#store = store;
    this.#groups = groups;
    this.#latency = latency;
  }

  /** `GET /v1/usage/latency`: how long the account's answered chat model calls took, p50 and p95 per UTC day and model. */
  async latency(accountId: string, params: LatencyListParams = {}): Promise<LatencyPage> {
    const data =
      (await this.#latency?.list(accountId, { startDate: params.start_date, endDate: params.end_date, model: params.model })) ?? [];
    return { object: 'list', data };
  }

  /** With `group_by`, `start_time` or `end_time`: the calls grouped by day, model, key and/or API with their cost. */
  async list(accountId: string, params: UsageListParams = {}): Promise<UsagePage | UsageGroupsPage> {
    if (this.#groups && (params.group_by !== undefined || params.start_time !== undefined || params.end_time !== undefined)) {
      return this.#groups(accountId, params);
    }
    const data = await this.#store.list(accountId, { startDate: params.start_date, endDate: params.end_date, model: params.model });
    return { object: 'list', data };
  }
}
