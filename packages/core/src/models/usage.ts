import type { UsageStore } from './usage-store';
import type { UsageListParams, UsagePage } from './wire/usage';

/**
 * `fathom.usage` (Fathom's own): an account's token usage per UTC day and model, counted on every model
 * call of every capability (the gateway routes, assistant runs, Responses, agents, data tools).
 */
export class Usage {
  readonly #store: Pick<UsageStore, 'list'>;

  constructor(store: Pick<UsageStore, 'list'>) {
    this.#store = store;
  }

  async list(accountId: string, params: UsageListParams = {}): Promise<UsagePage> {
    const data = await this.#store.list(accountId, { startDate: params.start_date, endDate: params.end_date, model: params.model });
    return { object: 'list', data };
  }
}
