import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { SqlClient } from '../storage';
import { ConversationItems, readItems, toConversation } from './conversation-items';
import { type ConversationRow, type ConversationsRepository, SqlConversationsRepository } from './conversations-repository';
import { type ContextSources, measureReferences } from './context';
import { ContextBudget } from './context-budget';
import type { FileContents } from './to-messages';
import type { ResponsesRepository } from './responses-repository';
import type { Conversation, ConversationCreateParams, ConversationDeleted, ConversationUpdateParams } from './wire';

/**
 * The Conversations API: a conversation is an ordered list of items that responses created with
 * `conversation` read as context and append their input and output to. Deleting a conversation keeps
 * the responses that used it. Its items are `fathom.conversations.items`.
 */
export class Conversations {
  readonly #repository: ConversationsRepository;
  readonly #sources: ContextSources;
  /** `fathom.conversations.items`: add, list, retrieve and delete a conversation's items. */
  readonly items: ConversationItems;

  constructor(options: { db: SqlClient; responses: ResponsesRepository; repository?: ConversationsRepository; files?: FileContents }) {
    this.#repository = options.repository ?? new SqlConversationsRepository(options.db);
    this.#sources = { responses: options.responses, conversations: this.#repository, files: options.files };
    this.items = new ConversationItems(this.#repository, this.#sources);
  }

  async create(accountId: string, params: ConversationCreateParams = {}): Promise<Conversation> {
    const metadata = params.metadata ?? {};
    const items = await readItems(this.#sources, accountId, params.items ?? []);
    await measureReferences(this.#sources, accountId, items, new ContextBudget(), 'items');
    const row: ConversationRow = { id: newId('conv_'), accountId, metadata, createdAt: nowSeconds() };
    await this.#repository.insert(row);
    if (items.length) await this.#repository.addItems(row.id, accountId, items);
    return toConversation(row);
  }

  async retrieve(accountId: string, id: string): Promise<Conversation> {
    const row = await this.#repository.get(accountId, id);
    if (!row) throw new NotFoundError('conversation', id);
    return toConversation(row);
  }

  /** Replaces the metadata (`null` clears it). */
  async update(accountId: string, id: string, params: ConversationUpdateParams): Promise<Conversation> {
    const conversation = await this.retrieve(accountId, id);
    const metadata = params.metadata ?? {};
    await this.#repository.setMetadata(accountId, id, metadata);
    return { ...conversation, metadata };
  }

  async delete(accountId: string, id: string): Promise<ConversationDeleted> {
    if (!(await this.#repository.delete(accountId, id))) throw new NotFoundError('conversation', id);
    return { id, object: 'conversation.deleted', deleted: true };
  }
}
