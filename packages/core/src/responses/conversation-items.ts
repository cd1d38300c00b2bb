import { NotFoundError } from '../errors';
import type { ConversationRow, ConversationsRepository } from './conversations-repository';
import { type ContextSources, resolveInput, resolveStored } from './context';
import { ContextBudget } from './context-budget';
import { type InputItem, normalizeInput } from './items';
import { checkFiles } from './ownership';
import { viewItem } from './run-response';
import {
  type Conversation,
  type ConversationItem,
  type ConversationItemCreateParams,
  type ConversationItemIncludeParams,
  type ConversationItemList,
  type ConversationItemListParams,
  includeOf,
  type ResponseInputItemParam,
} from './wire';

/** A conversation row as the API answers it. */
export function toConversation(row: ConversationRow): Conversation {
  return { id: row.id, object: 'conversation', created_at: row.createdAt, metadata: row.metadata };
}

/** Items as sent (the declaration checked their number), normalised; the files they name must be the account's (404 now). */
export async function readItems(sources: ContextSources, accountId: string, raw: readonly ResponseInputItemParam[]): Promise<InputItem[]> {
  const items = normalizeInput(raw, 'items');
  await checkFiles(sources.files, accountId, items, 'items');
  return items;
}

/** `fathom.conversations.items`: a conversation's items, `item_reference`s resolved when read. */
export class ConversationItems {
  readonly #repository: ConversationsRepository;
  readonly #sources: ContextSources;

  constructor(repository: ConversationsRepository, sources: ContextSources) {
    this.#repository = repository;
    this.#sources = sources;
  }

  /** Adds up to 20 items; answers them as a list. */
  async create(
    accountId: string,
    conversationId: string,
    params: ConversationItemCreateParams,
    query: ConversationItemIncludeParams = {},
  ): Promise<ConversationItemList> {
    await this.#row(accountId, conversationId);
    const items = await readItems(this.#sources, accountId, params.items);
    // The answer shows the items, references resolved (measured first: at most the context budget).
    const resolved = await resolveInput(this.#sources, accountId, items, new ContextBudget(), 'items');
    await this.#repository.addItems(conversationId, accountId, items);
    const include = includeOf(query);
    const data = resolved.map((item) => viewItem(item, include)) as unknown as ConversationItem[];
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: false };
  }

  async list(accountId: string, conversationId: string, params: ConversationItemListParams = {}): Promise<ConversationItemList> {
    await this.#row(accountId, conversationId);
    const { limit, order, after, before } = params;
    const page = await this.#repository.itemsPage(conversationId, { limit, order, after, before });
    const items = await resolveStored(this.#sources.responses, accountId, page.data, true);
    const include = includeOf(params);
    return { ...page, data: items.map((item) => viewItem(item, include)) as unknown as ConversationItem[] };
  }

  async retrieve(
    accountId: string,
    conversationId: string,
    itemId: string,
    query: ConversationItemIncludeParams = {},
  ): Promise<ConversationItem> {
    await this.#row(accountId, conversationId);
    const item = await this.#repository.item(conversationId, itemId);
    if (!item) throw new NotFoundError('item', itemId);
    const [resolved] = await resolveStored(this.#sources.responses, accountId, [item], true);
    return viewItem(resolved!, includeOf(query)) as unknown as ConversationItem;
  }

  /** Removes one item; answers the conversation, as OpenAI does. */
  async delete(accountId: string, conversationId: string, itemId: string): Promise<Conversation> {
    const row = await this.#row(accountId, conversationId);
    if (!(await this.#repository.deleteItem(conversationId, itemId))) throw new NotFoundError('item', itemId);
    return toConversation(row);
  }

  async #row(accountId: string, id: string): Promise<ConversationRow> {
    const row = await this.#repository.get(accountId, id);
    if (!row) throw new NotFoundError('conversation', id);
    return row;
  }
}
