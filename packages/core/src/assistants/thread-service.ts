import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { SqlClient } from '../storage';
import { normalizeMetadata, normalizeToolResources } from './normalize-input';
import type { RunsRepository } from './runs-repository';
import { attachToNewThread, attachToThread, checkAttachments, checkToolResources } from './thread-attachments';
import { fileSearchAttachments, type MessageInput, newClientMessage, type ThreadInput } from './thread-input';
import type { ThreadStores } from './thread-stores';
import type { ThreadsRepository } from './threads-repository';
import type { Message, Thread } from './types';

type Deleted<Kind extends string> = { id: string; object: Kind; deleted: true };

/**
 * Threads and their messages: validation, the account's ids checked when saved (another account's
 * store or file answers 404 like an unknown one), and files attached for `file_search` put into the
 * thread's vector store. Whether a run is active is the caller's (`AssistantRunner`) business.
 */
export class ThreadService {
  constructor(
    private readonly db: SqlClient,
    private readonly threads: ThreadsRepository,
    private readonly runs: RunsRepository,
    private readonly stores: ThreadStores | undefined,
  ) {}

  /** Creates a thread with its messages; `param` prefixes field names in errors (`thread.` for createAndRun). */
  async create(accountId: string, input: ThreadInput = {}, param = ''): Promise<Thread> {
    const messages = input.messages ?? [];
    if (!Array.isArray(messages)) throw new InvalidRequestError(`Invalid '${param}messages': expected an array.`, `${param}messages`);
    const draft: Thread = {
      id: newId('thread_'),
      object: 'thread',
      created_at: nowSeconds(),
      metadata: normalizeMetadata(input.metadata, `${param}metadata`) ?? {},
      tool_resources: normalizeToolResources(input.tool_resources, `${param}tool_resources`) ?? {},
    };
    // Validate every message and id before writing anything.
    const prepared = messages.map((message, index) => newClientMessage(draft.id, message, `${param}messages[${index}]`));
    await checkToolResources(this.stores, accountId, draft.tool_resources, `${param}tool_resources`);
    for (const [index, message] of prepared.entries())
      await checkAttachments(this.stores, accountId, message, `${param}messages[${index}].`);
    const thread = await attachToNewThread(this.stores, accountId, draft, fileSearchAttachments(prepared));
    await this.db.transaction(async (tx) => {
      await this.threads.in(tx).insertThread(accountId, thread);
      for (const message of prepared) await this.threads.in(tx).insertMessage(accountId, message);
    });
    return thread;
  }

  async retrieve(accountId: string, id: string, param: string | null = null): Promise<Thread> {
    const thread = await this.threads.getThread(accountId, id);
    if (!thread) throw new NotFoundError('thread', id, param);
    return thread;
  }

  async update(
    accountId: string,
    id: string,
    input: { metadata?: Record<string, string> | null; tool_resources?: unknown },
  ): Promise<Thread> {
    const thread = await this.retrieve(accountId, id);
    if (input.metadata !== undefined) thread.metadata = normalizeMetadata(input.metadata) ?? {};
    if (input.tool_resources !== undefined) {
      const resources = normalizeToolResources(input.tool_resources);
      await checkToolResources(this.stores, accountId, resources, 'tool_resources');
      thread.tool_resources = { ...thread.tool_resources, ...resources };
    }
    await this.threads.saveThread(thread);
    return thread;
  }

  /** Deletes a thread with its messages, runs and steps, in one transaction. */
  async delete(id: string): Promise<Deleted<'thread.deleted'>> {
    await this.db.transaction(async (tx) => {
      await this.runs.in(tx).deleteThreadRuns(id);
      await this.threads.in(tx).deleteThread(id);
    });
    return { id, object: 'thread.deleted', deleted: true };
  }

  async createMessage(accountId: string, threadId: string, input: MessageInput): Promise<Message> {
    const message = newClientMessage(threadId, input, '');
    await this.addMessages(accountId, threadId, [message], ['']);
    return message;
  }

  /**
   * Writes client messages of a saved thread (their attachments checked first, `prefixes` naming each
   * message in errors) and puts their file_search attachments into the thread's store.
   */
  async addMessages(accountId: string, threadId: string, messages: Message[], prefixes: string[]): Promise<void> {
    await this.attach(accountId, threadId, messages, prefixes);
    await this.db.transaction((tx) => this.insertMessages(tx, accountId, messages));
  }

  /** Checks the messages' attachments (404 naming `<prefix>attachments[i].file_id`) and puts the file_search ones into the thread's store. */
  async attach(accountId: string, threadId: string, messages: Message[], prefixes: string[]): Promise<void> {
    for (const [index, message] of messages.entries()) await checkAttachments(this.stores, accountId, message, prefixes[index]!);
    await attachToThread(this.stores, this.threads, accountId, threadId, fileSearchAttachments(messages));
  }

  /** Writes messages inside the caller's transaction. */
  async insertMessages(tx: SqlClient, accountId: string, messages: readonly Message[]): Promise<void> {
    for (const message of messages) await this.threads.in(tx).insertMessage(accountId, message);
  }

  async listMessages(accountId: string, threadId: string, query: ListQuery & { run_id?: string }): Promise<ListPage<Message>> {
    await this.retrieve(accountId, threadId);
    return this.threads.listMessages(threadId, query);
  }

  async retrieveMessage(accountId: string, threadId: string, id: string): Promise<Message> {
    const message = await this.threads.getMessage(accountId, threadId, id);
    if (!message) throw new NotFoundError('message', id);
    return message;
  }

  async updateMessage(
    accountId: string,
    threadId: string,
    id: string,
    input: { metadata?: Record<string, string> | null },
  ): Promise<Message> {
    const message = await this.retrieveMessage(accountId, threadId, id);
    if (input.metadata !== undefined) message.metadata = normalizeMetadata(input.metadata) ?? {};
    await this.threads.saveMessage(message);
    return message;
  }

  async deleteMessage(accountId: string, threadId: string, id: string): Promise<Deleted<'thread.message.deleted'>> {
    await this.retrieveMessage(accountId, threadId, id);
    await this.threads.deleteMessage(id);
    return { id, object: 'thread.message.deleted', deleted: true };
  }
}
