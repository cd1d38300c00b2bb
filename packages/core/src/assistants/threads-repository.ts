import type { Database } from '../db';
import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import { normalizeMetadata, normalizeToolResources } from './normalize-input';
import type { Message, TextContent, Thread } from './types';

/** A message as clients send it: `content` is a string or an array of `{type: 'text', text}` parts. */
export interface MessageInput {
  role?: string;
  content?: unknown;
  attachments?: Message['attachments'];
  metadata?: Record<string, string> | null;
}

export interface ThreadInput {
  messages?: MessageInput[];
  tool_resources?: unknown;
  metadata?: Record<string, string> | null;
}

/** Turns the client's `content` into text content parts, naming the field when it is unusable. */
function toTextContent(content: unknown, param: string): TextContent[] {
  const text = (value: string): TextContent => ({ type: 'text', text: { value, annotations: [] } });
  if (typeof content === 'string') return [text(content)];
  if (Array.isArray(content) && content.length > 0) {
    return content.map((part, index) => {
      if (part && typeof part === 'object' && (part as any).type === 'text' && typeof (part as any).text === 'string')
        return text((part as any).text);
      throw new InvalidRequestError(`Invalid '${param}[${index}]': only {type: 'text', text} parts are supported.`, `${param}[${index}]`);
    });
  }
  throw new InvalidRequestError(`Missing required parameter: '${param}' (a string or an array of text parts).`, param);
}

/** Threads and their messages, as OpenAI's `thread` and `thread.message` objects. */
export class ThreadStore {
  constructor(private readonly db: Database) {}

  create(accountId: string, input: ThreadInput = {}): Thread {
    const messages = input.messages ?? [];
    if (!Array.isArray(messages)) throw new InvalidRequestError(`Invalid 'messages': expected an array.`, 'messages');
    const thread: Thread = {
      id: newId('thread_'),
      object: 'thread',
      created_at: nowSeconds(),
      metadata: normalizeMetadata(input.metadata) ?? {},
      tool_resources: normalizeToolResources(input.tool_resources) ?? {},
    };
    // Validate every message before writing anything.
    const prepared = messages.map((message, index) => this.prepareUserMessage(thread.id, message, `messages[${index}]`));
    this.db.transaction(() => {
      this.db.prepare('INSERT INTO threads (id, account_id, data) VALUES (?, ?, ?)').run(thread.id, accountId, JSON.stringify(thread));
      for (const message of prepared) this.insertMessage(accountId, message);
    })();
    return thread;
  }

  get(accountId: string, id: string, param: string | null = null): Thread {
    const row = this.db
      .prepare<[string, string], { data: string }>('SELECT data FROM threads WHERE id = ? AND account_id = ?')
      .get(id, accountId);
    if (!row) throw new NotFoundError('thread', id, param);
    return JSON.parse(row.data) as Thread;
  }

  update(accountId: string, id: string, input: { metadata?: Record<string, string> | null; tool_resources?: unknown }): Thread {
    const thread = this.get(accountId, id);
    if (input.metadata !== undefined) thread.metadata = normalizeMetadata(input.metadata) ?? {};
    if (input.tool_resources !== undefined)
      thread.tool_resources = { ...thread.tool_resources, ...normalizeToolResources(input.tool_resources) };
    this.db.prepare('UPDATE threads SET data = ? WHERE id = ?').run(JSON.stringify(thread), id);
    return thread;
  }

  delete(accountId: string, id: string): { id: string; object: 'thread.deleted'; deleted: true } {
    this.get(accountId, id);
    this.db.transaction(() => {
      for (const table of ['thread_messages', 'run_steps', 'runs']) this.db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(id);
      this.db.prepare('DELETE FROM threads WHERE id = ?').run(id);
    })();
    return { id, object: 'thread.deleted', deleted: true };
  }

  createMessage(accountId: string, threadId: string, input: MessageInput): Message {
    this.get(accountId, threadId);
    const message = this.prepareUserMessage(threadId, input, '');
    this.insertMessage(accountId, message);
    return message;
  }

  /** A message written by a run (role assistant), in progress until the run completes it. */
  createRunMessage(accountId: string, threadId: string, assistantId: string, runId: string): Message {
    const message: Message = {
      id: newId('msg_'),
      object: 'thread.message',
      created_at: nowSeconds(),
      thread_id: threadId,
      status: 'in_progress',
      incomplete_details: null,
      completed_at: null,
      incomplete_at: null,
      role: 'assistant',
      content: [],
      assistant_id: assistantId,
      run_id: runId,
      attachments: [],
      metadata: {},
    };
    this.insertMessage(accountId, message);
    return message;
  }

  /** Stores a changed message object (used by runs as they fill and complete their messages). */
  saveMessage(message: Message): void {
    this.db.prepare('UPDATE thread_messages SET data = ? WHERE id = ?').run(JSON.stringify(message), message.id);
  }

  getMessage(accountId: string, threadId: string, id: string): Message {
    const row = this.db
      .prepare<[string, string, string], { data: string }>(
        'SELECT data FROM thread_messages WHERE id = ? AND thread_id = ? AND account_id = ?',
      )
      .get(id, threadId, accountId);
    if (!row) throw new NotFoundError('message', id);
    return JSON.parse(row.data) as Message;
  }

  updateMessage(accountId: string, threadId: string, id: string, input: { metadata?: Record<string, string> | null }): Message {
    const message = this.getMessage(accountId, threadId, id);
    if (input.metadata !== undefined) message.metadata = normalizeMetadata(input.metadata) ?? {};
    this.saveMessage(message);
    return message;
  }

  deleteMessage(accountId: string, threadId: string, id: string): { id: string; object: 'thread.message.deleted'; deleted: true } {
    this.getMessage(accountId, threadId, id);
    this.db.prepare('DELETE FROM thread_messages WHERE id = ?').run(id);
    return { id, object: 'thread.message.deleted', deleted: true };
  }

  listMessages(accountId: string, threadId: string, query: ListQuery & { run_id?: string }): ListPage<Message> {
    this.get(accountId, threadId);
    const where = query.run_id ? 'thread_id = ? AND run_id = ?' : 'thread_id = ?';
    return paginate<{ data: string }, Message>(this.db, {
      table: 'thread_messages',
      where,
      params: query.run_id ? [threadId, query.run_id] : [threadId],
      query,
      map: (row) => JSON.parse(row.data) as Message,
    });
  }

  /** Every message of a thread in creation order (the conversation a run starts from). */
  allMessages(threadId: string): Message[] {
    return this.db
      .prepare<[string], { data: string }>('SELECT data FROM thread_messages WHERE thread_id = ? ORDER BY rowid ASC')
      .all(threadId)
      .map((row) => JSON.parse(row.data) as Message);
  }

  private prepareUserMessage(threadId: string, input: MessageInput, prefix: string): Message {
    const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
    if (!input || typeof input !== 'object')
      throw new InvalidRequestError(`Invalid '${prefix || 'body'}': expected a message object.`, prefix || null);
    if (input.role !== 'user' && input.role !== 'assistant') {
      throw new InvalidRequestError(`Invalid '${at('role')}': expected 'user' or 'assistant'.`, at('role'));
    }
    return {
      id: newId('msg_'),
      object: 'thread.message',
      created_at: nowSeconds(),
      thread_id: threadId,
      status: 'completed',
      incomplete_details: null,
      completed_at: nowSeconds(),
      incomplete_at: null,
      role: input.role,
      content: toTextContent(input.content, at('content')),
      assistant_id: null,
      run_id: null,
      attachments: input.attachments ?? [],
      metadata: normalizeMetadata(input.metadata, at('metadata')) ?? {},
    };
  }

  private insertMessage(accountId: string, message: Message): void {
    this.db
      .prepare('INSERT INTO thread_messages (id, account_id, thread_id, run_id, data) VALUES (?, ?, ?, ?, ?)')
      .run(message.id, accountId, message.thread_id, message.run_id, JSON.stringify(message));
  }
}
