import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { validateMetadata } from '../internal/metadata';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { SqlClient } from '../storage';
import { type ConversationRow, type ConversationsRepository, SqlConversationsRepository } from './conversations-repository';
import { type ContextSources, measureReferences, resolveInput, resolveStored } from './context';
import { ContextBudget } from './context-budget';
import { type InputItem, normalizeInput, type StoredItem } from './items';
import { checkFiles } from './ownership';
import type { FileContents } from './to-messages';
import type { ResponsesRepository } from './responses-repository';
import { viewItem } from './run-response';

/** A conversation object as the SDK types it. */
export interface ConversationObject {
  id: string;
  object: 'conversation';
  created_at: number;
  metadata: Record<string, string>;
}

/** Items added in one call at most, as OpenAI limits them. */
export const MAX_ITEMS_PER_CALL = 20;

function toObject(row: ConversationRow): ConversationObject {
  return { id: row.id, object: 'conversation', created_at: row.createdAt, metadata: row.metadata };
}

/**
 * The Conversations API: a conversation is an ordered list of items that responses created with
 * `conversation` read as context and append their input and output to. Deleting a conversation keeps
 * the responses that used it.
 */
export class Conversations {
  readonly #repository: ConversationsRepository;
  readonly #sources: ContextSources;

  constructor(options: { db: SqlClient; responses: ResponsesRepository; repository?: ConversationsRepository; files?: FileContents }) {
    this.#repository = options.repository ?? new SqlConversationsRepository(options.db);
    this.#sources = { responses: options.responses, conversations: this.#repository, files: options.files };
  }

  async create(accountId: string, body: Record<string, unknown> = {}): Promise<ConversationObject> {
    const metadata = validateMetadata(body.metadata ?? undefined) ?? {};
    const items = await this.#readItems(accountId, body.items ?? undefined, 'items', false);
    await measureReferences(this.#sources, accountId, items, new ContextBudget(), 'items');
    const row: ConversationRow = { id: newId('conv_'), accountId, metadata, createdAt: nowSeconds() };
    await this.#repository.insert(row);
    if (items.length) await this.#repository.addItems(row.id, accountId, items);
    return toObject(row);
  }

  async retrieve(accountId: string, id: string): Promise<ConversationObject> {
    return toObject(await this.#row(accountId, id));
  }

  async update(accountId: string, id: string, body: Record<string, unknown>): Promise<ConversationObject> {
    const row = await this.#row(accountId, id);
    if (!('metadata' in body)) throw new InvalidRequestError("Missing required parameter: 'metadata'.", 'metadata');
    const metadata = validateMetadata(body.metadata) ?? {};
    await this.#repository.setMetadata(accountId, id, metadata);
    return toObject({ ...row, metadata });
  }

  async delete(accountId: string, id: string): Promise<{ id: string; object: 'conversation.deleted'; deleted: true }> {
    if (!(await this.#repository.delete(accountId, id))) throw new NotFoundError('conversation', id);
    return { id, object: 'conversation.deleted', deleted: true };
  }

  /** Adds up to 20 items; answers them as a list. */
  async addItems(accountId: string, id: string, body: Record<string, unknown>, include: readonly string[] = []) {
    await this.#row(accountId, id);
    const items = await this.#readItems(accountId, body.items, 'items', true);
    // The answer shows the items, references resolved (measured first: at most the context budget).
    const resolved = await resolveInput(this.#sources, accountId, items, new ContextBudget(), 'items');
    await this.#repository.addItems(id, accountId, items);
    const data = resolved.map((item) => viewItem(item, include));
    return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: false };
  }

  async listItems(accountId: string, id: string, query: ListQuery, include: readonly string[] = []): Promise<ListPage<StoredItem>> {
    await this.#row(accountId, id);
    const page = await this.#repository.itemsPage(id, query);
    const items = await resolveStored(this.#sources.responses, accountId, page.data, true);
    return { ...page, data: items.map((item) => viewItem(item, include)) };
  }

  async retrieveItem(accountId: string, id: string, itemId: string, include: readonly string[] = []): Promise<StoredItem> {
    await this.#row(accountId, id);
    const item = await this.#repository.item(id, itemId);
    if (!item) throw new NotFoundError('item', itemId);
    const [resolved] = await resolveStored(this.#sources.responses, accountId, [item], true);
    return viewItem(resolved!, include);
  }

  /** Removes one item; answers the conversation, as OpenAI does. */
  async deleteItem(accountId: string, id: string, itemId: string): Promise<ConversationObject> {
    const row = await this.#row(accountId, id);
    if (!(await this.#repository.deleteItem(id, itemId))) throw new NotFoundError('item', itemId);
    return toObject(row);
  }

  async #row(accountId: string, id: string): Promise<ConversationRow> {
    const row = await this.#repository.get(accountId, id);
    if (!row) throw new NotFoundError('conversation', id);
    return row;
  }

  /** Items as sent, validated; the files they name must be the account's (404 now, not when a response reads them). */
  async #readItems(accountId: string, raw: unknown, param: string, required: boolean): Promise<InputItem[]> {
    if (raw === undefined && !required) return [];
    if (!Array.isArray(raw)) throw new InvalidRequestError(`Invalid '${param}': expected an array of items.`, param);
    if (raw.length > MAX_ITEMS_PER_CALL) {
      throw new InvalidRequestError(`Invalid '${param}': at most ${MAX_ITEMS_PER_CALL} items can be added at a time.`, param);
    }
    const items = normalizeInput(raw, param);
    await checkFiles(this.#sources.files, accountId, items, param);
    return items;
  }
}
