import { NotFoundError } from '../errors';
import { type AssistantsContext, assertNoActiveRun, requireThread } from './assistants-context';
import { checkContentTotal } from './normalize-input';
import { attachMessages } from './thread-attachments';
import { newClientMessage } from './thread-input';
import type { Message, MessageCreateParams, MessageDeleted, MessageListParams, MessagesPage, MessageUpdateParams } from './wire/messages';

/**
 * `fathom.threads.messages`: the messages of a thread (OpenAI's `beta.threads.messages`). A message is
 * added only while no run is active on the thread; the files it attaches must be the account's, and
 * those attached for `file_search` go into the thread's vector store.
 */
export class ThreadMessages {
  readonly #context: AssistantsContext;

  constructor(context: AssistantsContext) {
    this.#context = context;
  }

  async create(accountId: string, threadId: string, params: MessageCreateParams): Promise<Message> {
    const { deps, stores } = this.#context;
    checkContentTotal(params.content, 'content');
    await requireThread(this.#context, accountId, threadId);
    await assertNoActiveRun(this.#context, threadId, 'add messages to');
    const message = newClientMessage(threadId, params);
    await attachMessages(stores, deps.threads, accountId, threadId, [message], ['']);
    await deps.db.transaction((tx) => deps.threads.in(tx).insertMessage(accountId, message));
    return message;
  }

  async retrieve(accountId: string, threadId: string, messageId: string): Promise<Message> {
    const message = await this.#context.deps.threads.getMessage(accountId, threadId, messageId);
    if (!message) throw new NotFoundError('message', messageId);
    return message;
  }

  async update(accountId: string, threadId: string, messageId: string, params: MessageUpdateParams): Promise<Message> {
    const message = await this.retrieve(accountId, threadId, messageId);
    if (params.metadata !== undefined) message.metadata = params.metadata ?? {};
    await this.#context.deps.threads.saveMessage(message);
    return message;
  }

  /** A page of the thread's messages (only those one run wrote, with `run_id`). */
  async list(accountId: string, threadId: string, query: MessageListParams = {}): Promise<MessagesPage> {
    await requireThread(this.#context, accountId, threadId);
    return this.#context.deps.threads.listMessages(threadId, query);
  }

  async delete(accountId: string, threadId: string, messageId: string): Promise<MessageDeleted> {
    await this.retrieve(accountId, threadId, messageId);
    await this.#context.deps.threads.deleteMessage(messageId);
    return { id: messageId, object: 'thread.message.deleted', deleted: true };
  }
}
