import type { LeaseQueue } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { byteLengthSql, placeholders, type Repository, type SqlClient, SqlLeaseQueue, slices, toPage } from '../storage';
import type { InputItem, StoredItem } from './items';
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
  /** The id of the request that created it (`req_…`), when one did. */
  requestId?: string | null;
  /** The W3C trace context of that request when it was traced: its background run continues the trace. */
  traceparent?: string | null;
  /** The API key of that request (its budget and rate limit are charged for the background run), when one did. */
  keyId?: string | null;
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
  request_id: string | null;
  traceparent: string | null;
  key_id?: string | null;
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
    requestId: row.request_id,
    traceparent: row.traceparent,
    keyId: row.key_id ?? null,
  };
}

const UNFINISHED = "('queued', 'in_progress')";

/** One stored row of a response's items, without its body: what it is and how large. */
export interface ItemEntry {
  itemId: string;
  /** The row stores an `item_reference` to `itemId`; its size is that of the item it names. */
  reference: boolean;
  /** Bytes of the row's stored JSON. */
  bytes: number;
}

/** A response of a `previous_response_id` chain and the entries of its input and output items. */
export interface ChainLink {
  id: string;
  entries: ItemEntry[];
}

/** The stored form of an item row: a reference stays a reference. */
export function itemRow(item: InputItem): { itemId: string; reference: number; json: string } {
  const reference = item.type === 'item_reference';
  return {
    itemId: item.id,
    reference: reference ? 1 : 0,
    json: JSON.stringify(reference ? { type: 'item_reference', id: item.id } : item),
  };
}

/** A response row as inserted: a stored foreground response is inserted leased by the process running it. */
export type NewResponse = StoredResponse & { createdAt: number; lease?: { owner: string; until: number } };

/** Storage of responses, their input and output items, and the stream events of background responses. */
export interface ResponsesRepository extends Repository<ResponsesRepository> {
  insert(response: NewResponse): Promise<void>;
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
  /** Stores items; an `item_reference` is stored as the reference, never as a copy of the item it names. */
  addItems(responseId: string, accountId: string, kind: 'input' | 'output', items: readonly InputItem[]): Promise<void>;
  items(responseId: string, kind: 'input' | 'output'): Promise<StoredItem[]>;
  /** A page of the input items as stored (references unresolved). */
  inputItemsPage(responseId: string, query: ListQuery): Promise<ListPage<InputItem>>;
  /** `responseId` and every response before it (`previous_response_id`) with their item entries, oldest first. */
  chain(accountId: string, responseId: string): Promise<ChainLink[]>;
  /**
   * Input and output items of `responseId` and of the responses before it, at most `depth` responses
   * (the newest ones), oldest first (references unresolved).
   */
  chainItems(accountId: string, responseId: string, depth: number): Promise<InputItem[]>;
  /**
   * Bytes of each stored item of the account among `ids`, from any response or conversation (one row per
   * id: the first stored copy; references are not items). Ids not found are absent.
   */
  itemSizes(accountId: string, ids: readonly string[]): Promise<Map<string, number>>;
  /** The items `itemSizes` measures, by id. */
  loadItems(accountId: string, ids: readonly string[]): Promise<Map<string, StoredItem>>;
  /**
   * Stores stream events of one run of a background response, only while `owner` holds the response's
   * lease (a run that lost it writes nothing); an event whose sequence number is taken is not replaced.
   */
  appendEvents(
    responseId: string,
    run: number,
    events: ReadonlyArray<{ sequence_number: number; [key: string]: unknown }>,
    owner: string,
  ): Promise<void>;
  /** Stored stream events after `sequenceNumber`, in order, with the run that produced each. */
  eventsAfter(responseId: string, sequenceNumber: number): Promise<Array<{ attempt: number; event: Record<string, unknown> }>>;
  /**
   * Where a new run of a background response writes its events: the run after the last one that wrote
   * any, numbering its events after every stored one, so the events of two runs never share a number.
   */
  nextRun(responseId: string): Promise<{ run: number; firstSequence: number }>;
  /** The run that wrote event `sequenceNumber`, if it is stored. */
  runOf(responseId: string, sequenceNumber: number): Promise<number | undefined>;
  /** Removes the output items of an earlier run (the events stay, told apart by their run). */
  clearOutput(responseId: string): Promise<void>;
  /** Background responses waiting to run, or running with a lease. */
  queue(): LeaseQueue<StoredResponse>;
  /** Stored foreground responses: held by the lease of the process running them; those of a stopped process are claimable. */
  foregroundQueue(): LeaseQueue<StoredResponse>;
}

export class SqlResponsesRepository implements ResponsesRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): ResponsesRepository {
    return new SqlResponsesRepository(tx);
  }

  async insert(response: NewResponse): Promise<void> {
    await this.db.run(
      `INSERT INTO responses (id, account_id, status, background, previous_response_id, conversation_id, body, request, created_at,
         attempts, lease_owner, lease_until, request_id, traceparent, key_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        response.attempts,
        response.lease?.owner ?? null,
        response.lease?.until ?? null,
        response.requestId ?? null,
        response.traceparent ?? null,
        response.keyId ?? null,
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

  async addItems(responseId: string, accountId: string, kind: 'input' | 'output', items: readonly InputItem[]): Promise<void> {
    for (const [position, item] of items.entries()) {
      const row = itemRow(item);
      await this.db.run(
        `INSERT INTO response_items (response_id, account_id, kind, position, item_id, reference, item) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (response_id, kind, position) DO UPDATE SET item_id = excluded.item_id, reference = excluded.reference, item = excluded.item`,
        [responseId, accountId, kind, position, row.itemId, row.reference, row.json],
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

  async inputItemsPage(responseId: string, query: ListQuery): Promise<ListPage<InputItem>> {
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
    return toPage(rows, limit, (row) => JSON.parse(row.item) as InputItem);
  }

  async chain(accountId: string, responseId: string): Promise<ChainLink[]> {
    const rows = await this.db.all<{ id: string; item_id: string | null; reference: number | null; bytes: number | null }>(
      `WITH RECURSIVE chain(id, previous, depth) AS (
         SELECT id, previous_response_id, 0 FROM responses WHERE id = ? AND account_id = ?
         UNION ALL
         SELECT r.id, r.previous_response_id, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous WHERE r.account_id = ?
       )
       SELECT c.id, i.item_id, i.reference, ${byteLengthSql('i.item')} AS bytes
       FROM chain c LEFT JOIN response_items i ON i.response_id = c.id
       ORDER BY c.depth DESC, CASE i.kind WHEN 'input' THEN 0 ELSE 1 END, i.position`,
      [responseId, accountId, accountId],
    );
    const links: ChainLink[] = [];
    for (const row of rows) {
      if (links.at(-1)?.id !== row.id) links.push({ id: row.id, entries: [] });
      if (row.item_id !== null) links.at(-1)!.entries.push({ itemId: row.item_id, reference: row.reference === 1, bytes: row.bytes ?? 0 });
    }
    return links;
  }

  async chainItems(accountId: string, responseId: string, depth: number): Promise<InputItem[]> {
    if (depth <= 0) return [];
    const rows = await this.db.all<{ item: string }>(
      `WITH RECURSIVE chain(id, previous, depth) AS (
         SELECT id, previous_response_id, 0 FROM responses WHERE id = ? AND account_id = ?
         UNION ALL
         SELECT r.id, r.previous_response_id, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous
         WHERE r.account_id = ? AND c.depth + 1 < ?
       )
       SELECT i.item FROM chain c JOIN response_items i ON i.response_id = c.id
       ORDER BY c.depth DESC, CASE i.kind WHEN 'input' THEN 0 ELSE 1 END, i.position`,
      [responseId, accountId, accountId, depth],
    );
    return rows.map((row) => JSON.parse(row.item));
  }

  async itemSizes(accountId: string, ids: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    const bytes = byteLengthSql('item');
    for (const table of ['response_items', 'conversation_items'] as const) {
      const missing = ids.filter((id) => !sizes.has(id));
      for (const slice of slices([...new Set(missing)])) {
        for (const row of await this.db.all<{ item_id: string; bytes: number }>(
          this.#firstCopies(table, `item_id, ${bytes} AS bytes`, slice.length),
          [accountId, ...slice],
        ))
          sizes.set(row.item_id, Number(row.bytes));
      }
    }
    return sizes;
  }

  async loadItems(accountId: string, ids: readonly string[]): Promise<Map<string, StoredItem>> {
    const items = new Map<string, StoredItem>();
    for (const table of ['response_items', 'conversation_items'] as const) {
      const missing = ids.filter((id) => !items.has(id));
      for (const slice of slices([...new Set(missing)])) {
        for (const row of await this.db.all<{ item_id: string; item: string }>(this.#firstCopies(table, 'item_id, item', slice.length), [
          accountId,
          ...slice,
        ]))
          items.set(row.item_id, JSON.parse(row.item));
      }
    }
    return items;
  }

  /**
   * `columns` of one row per item id among `count` ids (bound after the account): the first stored copy
   * (the same item is often stored several times, e.g. sent back whole in later inputs), references excluded.
   */
  #firstCopies(table: 'response_items' | 'conversation_items', columns: string, count: number): string {
    const where = `account_id = ? AND reference = 0 AND item_id IN ${placeholders(count)}`;
    if (this.db.dialect === 'postgres') {
      const order = table === 'response_items' ? 'response_id, kind, position' : 'seq';
      return `SELECT DISTINCT ON (item_id) ${columns} FROM ${table} WHERE ${where} ORDER BY item_id, ${order}`;
    }
    return `SELECT ${columns} FROM ${table} WHERE rowid IN (SELECT MIN(rowid) FROM ${table} WHERE ${where} GROUP BY item_id)`;
  }

  async appendEvents(
    responseId: string,
    run: number,
    events: ReadonlyArray<{ sequence_number: number; [key: string]: unknown }>,
    owner: string,
  ): Promise<void> {
    if (events.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const event of events) {
        await tx.run(
          `INSERT INTO response_events (response_id, sequence_number, attempt, event)
           SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM responses WHERE id = ? AND lease_owner = ?)
           ON CONFLICT (response_id, sequence_number) DO NOTHING`,
          [responseId, event.sequence_number, run, JSON.stringify(event), responseId, owner],
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

  async nextRun(responseId: string): Promise<{ run: number; firstSequence: number }> {
    const row = await this.db.get<{ run: number | null; last: number | null }>(
      'SELECT MAX(attempt) AS run, MAX(sequence_number) AS last FROM response_events WHERE response_id = ?',
      [responseId],
    );
    return { run: Number(row?.run ?? 0) + 1, firstSequence: row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1 };
  }

  async runOf(responseId: string, sequenceNumber: number): Promise<number | undefined> {
    const row = await this.db.get<{ attempt: number }>(
      'SELECT attempt FROM response_events WHERE response_id = ? AND sequence_number = ?',
      [responseId, sequenceNumber],
    );
    return row ? Number(row.attempt) : undefined;
  }

  async clearOutput(responseId: string): Promise<void> {
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

  foregroundQueue(): LeaseQueue<StoredResponse> {
    return new SqlLeaseQueue<StoredResponse>(this.db, {
      table: 'responses',
      // Given back at a shutdown that could not end them: claimable at once, and ended failed like the rest.
      waiting: "status = 'queued' AND background = 0",
      working: "status = 'in_progress' AND background = 0",
      onRelease: "status = 'queued'",
      order: 'created_at',
      toTask: (row) => toStored(row as unknown as ResponseRowSql),
    });
  }
}
