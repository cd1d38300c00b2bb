import { NotFoundError } from '../errors';
import { resolveStored } from './context';
import type { ResponsesRepository } from './responses-repository';
import { viewItem } from './run-response';
import { includeOf, type InputItemListParams, type ResponseItemList } from './wire';

/** `fathom.responses.inputItems`: the input items of a stored response, references resolved. */
export class ResponseInputItems {
  readonly #repository: ResponsesRepository;

  constructor(repository: ResponsesRepository) {
    this.#repository = repository;
  }

  /** `GET /v1/responses/{id}/input_items`. */
  async list(accountId: string, responseId: string, params: InputItemListParams = {}): Promise<ResponseItemList> {
    if (!(await this.#repository.exists(accountId, responseId))) throw new NotFoundError('response', responseId);
    const { limit, order, after, before } = params;
    const page = await this.#repository.inputItemsPage(responseId, { limit, order, after, before });
    const items = await resolveStored(this.#repository, accountId, page.data, true);
    const include = includeOf(params);
    return { ...page, data: items.map((item) => viewItem(item, include)) } as unknown as ResponseItemList;
  }
}
