import type { LeaseQueue } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { type Repository, type SqlClient, SqlLeaseQueue, toPage } from '../storage';
import type { StoredItem } from './items';
import type { ResponseObject } from './run-response';

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

export interface StoredResponse {
  id: string;
  accountId: string;
  status: ResponseStatus;
  background: boolean;
  previousResponseId: string | null;
  conversationId: string | null;
  /** The response object as last written. */
  body: ResponseObject;
  /** The request of a background response, kept until it ran. */
  request: unknown;
  attempts: number;
}

interface ResponseRowSql {
  id: string;
  account_id: string;
  status: ResponseStatus;
  background: number;
  previous_response_id: string | null;
  conversation_id: string | null;
  body: string;
  request: string | null;
  attempts: number;
}

function toStored(row: ResponseRowSql): StoredResponse {
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status,
    background: row.background === 1,
    previousResponseId: row.previous_response_id,
    conversationId: row.conversation_id,
    body: JSON.parse(row.body),
    request: row.request ? JSON.parse(row.request) : null,
    attempts: row.attempts,
  };
}

const UNFINISHED = "('queued', 'in_progress')";

/** Storage of responses, their input and output items, and the stream events of background responses. */
export interface ResponsesRepository extends Repository<ResponsesRepository> {
  insert(response: StoredResponse & { createdAt: number }): Promise<void>;
  /** The response of this account, or undefined (also for another account's id). */
  get(accountId: string, id: string): Promise<StoredResponse | undefined>;
  /** Whether the account has this response, without reading its body (lists of its items check it). */
  exists(accountId: string, id: string): Promise<boolean>;
  /**
   * Writes the response object while it is not finished (a cancelled response stays cancelled); with an
   * `owner`, only while that process holds its lease. False when nothing was written.
   */
  update(id: string, status: ResponseStatus, body: ResponseObject, owner?: string): Promise<boolean>;
  /** queued/in_progress -> cancelled; false when the response is not of the account or already finished. */
  cancel(accountId: string, id: string, body: ResponseObject): Promise<boolean>;
  delete(accountId: string, id: string): Promise<boolean>;
  addItems(responseId: string, accountId: string, kind: 'input' | 'output', items: readonly StoredItem[]): Promise<void>;
  items(responseId: string, kind: 'input' | 'output'): Promise<StoredItem[]>;
  inputItemsPage(responseId: string, query: ListQuery): Promise<ListPage<StoredItem>>;
  /** Input and output items of `responseId` and every response before it (`previous_response_id`), oldest first. */
  chainItems(accountId: string, responseId: string): Promise<StoredItem[]>;
  /** A stored item of the account, from any response or conversation (for `item_reference`). */
  findItem(accountId: string, itemId: string): Promise<StoredItem | undefined>;
  appendEvents(
    responseId: string,
    attempt: number,
    events: ReadonlyArray<{ sequence_number: number; [key: string]: unknown }>,
  ): Promise<void>;
  /** Stored stream events after `sequenceNumber`, in order, with the attempt that produced each. */
  eventsAfter(responseId: string, sequenceNumber: number): Promise<Array<{ attempt: number; event: Record<string, unknown> }>>;
  clearRun(responseId: string): Promise<void>;
  /** Background responses waiting to run, or running with a lease. */
  queue(): LeaseQueue<StoredResponse>;
}

export class SqlResponsesRepository implements ResponsesRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): ResponsesRepository {
    return new SqlResponsesRepository(tx);
  }

  async insert(response: StoredResponse & { createdAt: number }): Promise<void> {
    await this.db.run(
      `INSERT INTO responses (id, account_id, status, background, previous_response_id, conversation_id, body, request, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        response.id,
        response.accountId,
        response.status,
        response.background ? 1 : 0,
        response.previousResponseId,
        response.conversationId,
        JSON.stringify(response.body),
        response.request === null ? null : JSON.stringify(response.request),
        response.createdAt,
      ],
    );
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const row = await this.db.get<ResponseRowSql>('SELECT * FROM responses WHERE id = ? AND account_id = ?', [id, accountId]);
    return row ? toStored(row) : undefined;
  }

  async exists(accountId: string, id: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM responses WHERE id = ? AND account_id = ?', [id, accountId])) !== undefined;
  }

  async update(id: string, status: ResponseStatus, body: ResponseObject, owner?: string): Promise<boolean> {
    const finished = status !== 'queued' && status !== 'in_progress';
    const result = await this.db.run(
      `UPDATE responses SET status = ?, body = ?${finished ? ', request = NULL, lease_until = NULL' : ''}
       WHERE id = ? AND status IN ${UNFINISHED}${owner ? ' AND lease_owner = ?' : ''}`,
      [status, JSON.stringify(body), id, ...(owner ? [owner] : [])],
    );
    return result.changes > 0;
  }

  async cancel(accountId: string, id: string, body: ResponseObject): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE responses SET status = 'cancelled', body = ?, request = NULL, lease_until = NULL
       WHERE id = ? AND account_id = ? AND status IN ${UNFINISHED}`,
      [JSON.stringify(body), id, accountId],
    );
    return result.changes > 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const found = await tx.get('SELECT id FROM responses WHERE id = ? AND account_id = ?', [id, accountId]);
      if (!found) return false;
      await tx.run('DELETE FROM response_events WHERE response_id = ?', [id]);
      await tx.run('DELETE FROM response_items WHERE response_id = ?', [id]);
      await tx.run('DELETE FROM responses WHERE id = ?', [id]);
      return true;
    });
  }

  async addItems(responseId: string, accountId: string, kind: 'input' | 'output', items: readonly StoredItem[]): Promise<void> {
    for (const [position, item] of items.entries()) {
      await this.db.run(
        `INSERT INTO response_items (response_id, account_id, kind, position, item_id, item) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (response_id, kind, position) DO UPDATE SET item_id = excluded.item_id, item = excluded.item`,
        [responseId, accountId, kind, position, item.id, JSON.stringify(item)],
      );
    }
  }

  async items(responseId: string, kind: 'input' | 'output'): Promise<StoredItem[]> {
    const rows = await this.db.all<{ item: string }>(
      'SELECT item FROM response_items WHERE response_id = ? AND kind = ? ORDER BY position',
      [responseId, kind],
    );
    return rows.map((row) => JSON.parse(row.item));
  }

  async inputItemsPage(responseId: string, query: ListQuery): Promise<ListPage<StoredItem>> {
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['response_id = ?', "kind = 'input'"];
    const params: unknown[] = [responseId];
    const cursor = (itemId: string, op: string) => {
      conditions.push(`position ${op} (SELECT MIN(position) FROM response_items WHERE response_id = ? AND kind = 'input' AND item_id = ?)`);
      params.push(responseId, itemId);
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = await this.db.all<{ item: string }>(
      `SELECT item FROM response_items WHERE ${conditions.join(' AND ')} ORDER BY position ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...params, limit + 1],
    );
    return toPage(rows, limit, (row) => JSON.parse(row.item) as StoredItem);
  }

  async chainItems(accountId: string, responseId: string): Promise<StoredItem[]> {
    const rows = await this.db.all<{ item: string }>(
      `WITH RECURSIVE chain(id, previous, depth) AS (
         SELECT id, previous_response_id, 0 FROM responses WHERE id = ? AND account_id = ?
         UNION ALL
         SELECT r.id, r.previous_response_id, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous WHERE r.account_id = ?
       )
       SELECT i.item FROM chain c JOIN response_items i ON i.response_id = c.id
       ORDER BY c.depth DESC, CASE i.kind WHEN 'input' THEN 0 ELSE 1 END, i.position`,
      [responseId, accountId, accountId],
    );
    return rows.map((row) => JSON.parse(row.item));
  }

  async findItem(accountId: string, itemId: string): Promise<StoredItem | undefined> {
    const row =
      (await this.db.get<{ item: string }>('SELECT item FROM response_items WHERE item_id = ? AND account_id = ? LIMIT 1', [
        itemId,
        accountId,
      ])) ??
      (await this.db.get<{ item: string }>('SELECT item FROM conversation_items WHERE item_id = ? AND account_id = ? LIMIT 1', [
        itemId,
        accountId,
      ]));
    return row ? JSON.parse(row.item) : undefined;
  }

  async appendEvents(
    responseId: string,
    attempt: number,
    events: ReadonlyArray<{ sequence_number: number; [key: string]: unknown }>,
  ): Promise<void> {
    if (events.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const event of events) {
        await tx.run(
          `INSERT INTO response_events (response_id, sequence_number, attempt, event) VALUES (?, ?, ?, ?)
           ON CONFLICT (response_id, sequence_number) DO UPDATE SET attempt = excluded.attempt, event = excluded.event`,
          [responseId, event.sequence_number, attempt, JSON.stringify(event)],
        );
      }
    });
  }

  async eventsAfter(responseId: string, sequenceNumber: number): Promise<Array<{ attempt: number; event: Record<string, unknown> }>> {
    const rows = await this.db.all<{ attempt: number; event: string }>(
      'SELECT attempt, event FROM response_events WHERE response_id = ? AND sequence_number > ? ORDER BY sequence_number',
      [responseId, sequenceNumber],
    );
    return rows.map((row) => ({ attempt: row.attempt, event: JSON.parse(row.event) }));
  }

  async clearRun(responseId: string): Promise<void> {
    await this.db.run('DELETE FROM response_events WHERE response_id = ?', [responseId]);
    await this.db.run("DELETE FROM response_items WHERE response_id = ? AND kind = 'output'", [responseId]);
  }

  queue(): LeaseQueue<StoredResponse> {
    return new SqlLeaseQueue<StoredResponse>(this.db, {
      table: 'responses',
      waiting: "status = 'queued' AND background = 1",
      working: "status = 'in_progress' AND background = 1",
      onClaim: "status = 'in_progress'",
      onRelease: "status = 'queued'",
      order: 'created_at',
      toTask: (row) => toStored(row as unknown as ResponseRowSql),
    });
  }
}
