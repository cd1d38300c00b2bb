import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, type Repository, type SqlClient } from '../storage';
import type { Assistant } from './types';

/** Storage of assistants: OpenAI's `assistant` objects of each account. Rules live in `Assistants` (`assistants.ts`). */
export interface AssistantsRepository extends Repository<AssistantsRepository> {
  insert(accountId: string, assistant: Assistant): Promise<void>;
  get(accountId: string, id: string): Promise<Assistant | undefined>;
  save(accountId: string, assistant: Assistant): Promise<void>;
  list(accountId: string, query: ListQuery): Promise<ListPage<Assistant>>;
  delete(accountId: string, id: string): Promise<boolean>;
}

/** The SQL of assistants, the same on SQLite and PostgreSQL. */
export class SqlAssistantsRepository implements AssistantsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): AssistantsRepository {
    return new SqlAssistantsRepository(tx);
  }

  async insert(accountId: string, assistant: Assistant): Promise<void> {
    await this.db.run('INSERT INTO assistants (id, account_id, data) VALUES (?, ?, ?)', [
      assistant.id,
      accountId,
      JSON.stringify(assistant),
    ]);
  }

  async get(accountId: string, id: string): Promise<Assistant | undefined> {
    const row = await this.db.get<{ data: string }>('SELECT data FROM assistants WHERE id = ? AND account_id = ?', [id, accountId]);
    return row && (JSON.parse(row.data) as Assistant);
  }

  async save(accountId: string, assistant: Assistant): Promise<void> {
    await this.db.run('UPDATE assistants SET data = ? WHERE id = ? AND account_id = ?', [
      JSON.stringify(assistant),
      assistant.id,
      accountId,
    ]);
  }

  list(accountId: string, query: ListQuery): Promise<ListPage<Assistant>> {
    return paginate<{ data: string }, Assistant>(this.db, {
      table: 'assistants',
      columns: 'data',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => JSON.parse(row.data) as Assistant,
    });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM assistants WHERE id = ? AND account_id = ?', [id, accountId])).changes > 0;
  }
}
