import type { ErrorStore } from './error-store';
import type { LatencyStore } from './latency-store';
import type { UsageStore } from './usage-store';
import type { UsageErrorListParams, UsageErrorsPage } from './wire/errors';
import type { LatencyListParams, LatencyPage } from './wire/latency';
import type { UsageGroupsPage, UsageListParams, UsagePage } from './wire/usage';

/** The grouped view of an account's model calls (the spend capability's call log). */
export type UsageGroups = (accountId: string, params: UsageListParams) => Promise<UsageGroupsPage>;

/** What a usage answer may show of a key: its name and redacted value (`fth_…` and the last four characters), never the secret. */
export interface KeyLabel {
  name: string | null;
  redacted_value: string;
}

/** The labels of an account's keys among `ids`; a key not found (revoked, or another account's) is left out. */
export type KeyLabels = (accountId: string, ids: readonly string[]) => Promise<Map<string, KeyLabel>>;

export interface UsageOptions {
  store: Pick<UsageStore, 'list'>;
  /** The grouped view (`group_by`), from the spend capability's call log. */
  groups?: UsageGroups;
  latency?: Pick<LatencyStore, 'list'>;
  errors?: Pick<ErrorStore, 'list' | 'record'>;
  /** Names the keys of `group_by=key` answers (the accounts capability's keys). */
  keyLabels?: KeyLabels;
}

/**
 * `fathom.usage` (Fathom's own): an account's token usage per UTC day and model, counted on every model
 * call of every capability (the gateway routes, assistant runs, Responses, agents, data tools), its calls'
 * latency, and its requests answered with an error.
 */
export class Usage {
  readonly #options: UsageOptions;

  constructor(options: UsageOptions) {
    this.#options = options;
  }

  /** `GET /v1/usage/latency`: how long the account's answered chat model calls took, p50 and p95 per UTC day and model. */
  async latency(accountId: string, params: LatencyListParams = {}): Promise<LatencyPage> {
    const data =
      (await this.#options.latency?.list(accountId, { startDate: params.start_date, endDate: params.end_date, model: params.model })) ?? [];
    return { object: 'list', data };
  }

  /** `GET /v1/usage/errors`: the account's requests answered with an error, per UTC day, status and code. */
  async errors(accountId: string, params: UsageErrorListParams = {}): Promise<UsageErrorsPage> {
    const data = (await this.#options.errors?.list(accountId, { startDate: params.start_date, endDate: params.end_date })) ?? [];
    return { object: 'list', data };
  }

  /** Counts one request of the account answered with an error (`status` 400–599, the error's `code`); the HTTP edge calls it. */
  recordError(accountId: string, status: number, code: string | null): void {
    this.#options.errors?.record(accountId, status, code);
  }

  /**
   * With `group_by`, `start_time` or `end_time`: the calls grouped by day, model, key and/or API with their
   * cost; grouped by key, each group also names its key (`key_name`, `key_redacted_value`).
   */
  async list(accountId: string, params: UsageListParams = {}): Promise<UsagePage | UsageGroupsPage> {
    const { groups, keyLabels } = this.#options;
    if (groups && (params.group_by !== undefined || params.start_time !== undefined || params.end_time !== undefined)) {
      const page = await groups(accountId, params);
      if (!page.group_by.includes('key') || !keyLabels) return page;
      const ids = [...new Set(page.data.map((group) => group.key_id).filter((id): id is string => typeof id === 'string'))];
      const labels = ids.length > 0 ? await keyLabels(accountId, ids) : new Map<string, KeyLabel>();
      return {
        ...page,
        data: page.data.map((group) => {
          const label = group.key_id ? labels.get(group.key_id) : undefined;
          return { ...group, key_name: label?.name ?? null, key_redacted_value: label?.redacted_value ?? null };
        }),
      };
    }
    const data = await this.#options.store.list(accountId, { startDate: params.start_date, endDate: params.end_date, model: params.model });
    return { object: 'list', data };
  }
}
