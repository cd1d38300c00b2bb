import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, type Repository, type SqlClient } from '../storage';
import type { Message, Thread } from './types';

/** Storage of threads and their messages (OpenAI's `thread` and `thread.message` objects). */
export interface ThreadsRepository extends Repository<ThreadsRepository> {
  insertThread(accountId: string, thread: Thread): Promise<void>;
  getThread(accountId: string, id: string): Promise<Thread | undefined>;
  /**
   * Replaces the thread object. With `expected`, only while the stored object still equals it
   * (compare-and-set: two processes changing one thread's stores cannot lose each other's change).
   */
  saveThread(thread: Thread, expected?: Thread): Promise<boolean>;
  /** Deletes the thread and its messages (its runs are the runs repository's). */
  deleteThread(id: string): Promise<void>;
  insertMessage(accountId: string, message: Message): Promise<void>;
  getMessage(accountId: string, threadId: string, id: string): Promise<Message | undefined>;
  saveMessage(message: Message): Promise<void>;
  deleteMessage(id: string): Promise<void>;
  listMessages(threadId: string, query: ListQuery & { run_id?: string }): Promise<ListPage<Message>>;
  /** Every message of a thread in creation order (the conversation a run starts from). */
  allMessages(threadId: string): Promise<Message[]>;
  /** Messages a run wrote, in creation order. */
  runMessages(runId: string): Promise<Message[]>;
}

/** The SQL of threads and messages, the same on SQLite and PostgreSQL. */
export class SqlThreadsRepository implements ThreadsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): ThreadsRepository {
    return new SqlThreadsRepository(tx);
  }

  async insertThread(accountId: string, thread: Thread): Promise<void> {
    await this.db.run('INSERT INTO threads (id, account_id, data) VALUES (?, ?, ?)', [thread.id, accountId, JSON.stringify(thread)]);
  }

  async getThread(accountId: string, id: string): Promise<Thread | undefined> {
    const row = await this.db.get<{ data: string }>('SELECT data FROM threads WHERE id = ? AND account_id = ?', [id, accountId]);
    return row && (JSON.parse(row.data) as Thread);
  }

  async saveThread(thread: Thread, expected?: Thread): Promise<boolean> {
    const result = expected
      ? await this.db.run('UPDATE threads SET data = ? WHERE id = ? AND data = ?', [
          JSON.stringify(thread),
          thread.id,
          JSON.stringify(expected),
        ])
      : await this.db.run('UPDATE threads SET data = ? WHERE id = ?', [JSON.stringify(thread), thread.id]);
    return result.changes > 0;
  }

  async deleteThread(id: string): Promise<void> {
    await this.db.run('DELETE FROM thread_messages WHERE thread_id = ?', [id]);
    await this.db.run('DELETE FROM threads WHERE id = ?', [id]);
  }

  async insertMessage(accountId: string, message: Message): Promise<void> {
    await this.db.run('INSERT INTO thread_messages (id, account_id, thread_id, run_id, data) VALUES (?, ?, ?, ?, ?)', [
      message.id,
      accountId,
      message.thread_id,
      message.run_id,
      JSON.stringify(message),
    ]);
  }

  async getMessage(accountId: string, threadId: string, id: string): Promise<Message | undefined> {
    const row = await this.db.get<{ data: string }>('SELECT data FROM thread_messages WHERE id = ? AND thread_id = ? AND account_id = ?', [
      id,
      threadId,
      accountId,
    ]);
    return row && (JSON.parse(row.data) as Message);
  }

  async saveMessage(message: Message): Promise<void> {
    await this.db.run('UPDATE thread_messages SET data = ? WHERE id = ?', [JSON.stringify(message), message.id]);
  }

  async deleteMessage(id: string): Promise<void> {
    await this.db.run('DELETE FROM thread_messages WHERE id = ?', [id]);
  }

  listMessages(threadId: string, query: ListQuery & { run_id?: string }): Promise<ListPage<Message>> {
    return paginate<{ data: string }, Message>(this.db, {
      table: 'thread_messages',
      columns: 'data',
      where: query.run_id ? 'thread_id = ? AND run_id = ?' : 'thread_id = ?',
      params: query.run_id ? [threadId, query.run_id] : [threadId],
      query,
      map: (row) => JSON.parse(row.data) as Message,
    });
  }

  async allMessages(threadId: string): Promise<Message[]> {
    const rows = await this.db.all<{ data: string }>(
      `SELECT data FROM thread_messages WHERE thread_id = ? ORDER BY ${this.#insertionOrder()}`,
      [threadId],
    );
    return rows.map((row) => JSON.parse(row.data) as Message);
  }

  async runMessages(runId: string): Promise<Message[]> {
    const rows = await this.db.all<{ data: string }>(
      `SELECT data FROM thread_messages WHERE run_id = ? ORDER BY ${this.#insertionOrder()}`,
      [runId],
    );
    return rows.map((row) => JSON.parse(row.data) as Message);
  }

  /** Insertion order: SQLite's rowid, PostgreSQL's identity column. */
  #insertionOrder(): string {
    return this.db.dialect === 'sqlite' ? 'rowid' : 'seq';
  }
}
