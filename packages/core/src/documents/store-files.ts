import type { Database } from '../db';
import { StatementCache } from './statement-cache';
import { InvalidRequestError, NotFoundError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { StaticChunking } from './chunking';
import type { Attributes } from './validate';

export const STORE_FILE_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;
export type StoreFileStatus = (typeof STORE_FILE_STATUSES)[number];

/** A vector store file object as the SDK types it. */
export interface StoreFileObject {
  id: string;
  object: 'vector_store.file';
  usage_bytes: number;
  created_at: number;
  vector_store_id: string;
  status: StoreFileStatus;
  last_error: { code: string; message: string } | null;
  chunking_strategy: { type: 'static'; static: StaticChunking };
  attributes: Attributes;
}

export interface StoreFileRow {
  seq: number;
  store_id: string;
  file_id: string;
  account_id: string;
  status: StoreFileStatus;
  attributes: string | null;
  chunk_max_tokens: number;
  chunk_overlap_tokens: number;
  last_error_code: string | null;
  last_error_message: string | null;
  usage_bytes: number;
  chunk_count: number;
  attempts: number;
  generation: number;
  created_at: number;
}

/** Membership of files in stores; the rows `in_progress` are the durable ingestion queue. */
export class StoreFiles {
  private readonly db: Database;
  private readonly sql: StatementCache;

  constructor(db: Database) {
    this.db = db;
    this.sql = new StatementCache(this.db);
  }

  /**
   * Adds a file to a store (or re-queues it with new options when it is already there): status
   * `in_progress`, a new generation so any older run of it cannot complete.
   */
  enqueue(input: {
    accountId: string;
    storeId: string;
    fileId: string;
    attributes: Attributes | null;
    chunking: StaticChunking;
  }): StoreFileRow {
    this.sql
      .get(
        `INSERT INTO vector_store_files (store_id, file_id, account_id, status, attributes, chunk_max_tokens, chunk_overlap_tokens, created_at)
         VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?)
         ON CONFLICT (store_id, file_id) DO UPDATE SET status = 'in_progress', attributes = excluded.attributes,
           chunk_max_tokens = excluded.chunk_max_tokens, chunk_overlap_tokens = excluded.chunk_overlap_tokens,
           last_error_code = NULL, last_error_message = NULL, usage_bytes = 0, chunk_count = 0, attempts = 0,
           lease_owner = NULL, lease_until = NULL, generation = generation + 1`,
      )
      .run(
        input.storeId,
        input.fileId,
        input.accountId,
        input.attributes ? JSON.stringify(input.attributes) : null,
        input.chunking.max_chunk_size_tokens,
        input.chunking.chunk_overlap_tokens,
        nowSeconds(),
      );
    return this.find(input.storeId, input.fileId)!;
  }

  find(storeId: string, fileId: string): StoreFileRow | undefined {
    return this.sql
      .get<[string, string], StoreFileRow>('SELECT * FROM vector_store_files WHERE store_id = ? AND file_id = ?')
      .get(storeId, fileId);
  }

  /** The store file, or 404. The caller has already checked the store belongs to the account. */
  row(storeId: string, fileId: string): StoreFileRow {
    const row = this.find(storeId, fileId);
    if (!row) throw new NotFoundError('file', fileId);
    return row;
  }

  /** Stores holding a file (for `DELETE /v1/files/{id}`). */
  storesOf(fileId: string): string[] {
    return this.sql
      .get<[string], { store_id: string }>('SELECT store_id FROM vector_store_files WHERE file_id = ?')
      .all(fileId)
      .map((row) => row.store_id);
  }

  remove(storeId: string, fileId: string): boolean {
    return this.sql.get('DELETE FROM vector_store_files WHERE store_id = ? AND file_id = ?').run(storeId, fileId).changes > 0;
  }

  setAttributes(storeId: string, fileId: string, attributes: Attributes | null): void {
    this.sql
      .get('UPDATE vector_store_files SET attributes = ? WHERE store_id = ? AND file_id = ?')
      .run(attributes ? JSON.stringify(attributes) : null, storeId, fileId);
  }

  /** Next queued rows in order (at most `limit`) that no other process holds a live lease on. */
  queued(limit: number, owner = '', now = Date.now()): StoreFileRow[] {
    return this.sql
      .get<[string, number, number], StoreFileRow>(
        `SELECT * FROM vector_store_files WHERE status = 'in_progress'
           AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?) ORDER BY seq LIMIT ?`,
      )
      .all(owner, now, limit);
  }

  /** Takes the row for a run (lease until `until`) and counts the attempt; null when another process holds it. */
  claim(row: StoreFileRow, owner: string, until: number, now = Date.now()): number | null {
    const claimed = this.sql
      .get<[string, number, number, number, string, number], { attempts: number }>(
        `UPDATE vector_store_files SET attempts = attempts + 1, lease_owner = ?, lease_until = ?
         WHERE seq = ? AND generation = ? AND status = 'in_progress' AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)
         RETURNING attempts`,
      )
      .get(owner, until, row.seq, row.generation, owner, now);
    return claimed ? claimed.attempts : null;
  }

  /** Gives a row back (graceful shutdown); `refund` takes back the attempt, since only crashes count. */
  release(row: StoreFileRow, owner: string, refund: boolean): void {
    this.sql
      .get(
        'UPDATE vector_store_files SET lease_owner = NULL, lease_until = NULL, attempts = MAX(0, attempts - ?) WHERE seq = ? AND lease_owner = ?',
      )
      .run(refund ? 1 : 0, row.seq, owner);
  }

  renewLeases(owner: string, until: number): void {
    this.sql.get("UPDATE vector_store_files SET lease_until = ? WHERE lease_owner = ? AND status = 'in_progress'").run(until, owner);
  }

  /** Frees the leases of owners that `isDead` says are gone (a crashed process on this host). */
  clearDeadLeases(isDead: (owner: string) => boolean): void {
    const owners = this.sql
      .get<[], { lease_owner: string }>(
        "SELECT DISTINCT lease_owner FROM vector_store_files WHERE status = 'in_progress' AND lease_owner IS NOT NULL",
      )
      .all();
    for (const { lease_owner: owner } of owners) {
      if (isDead(owner))
        this.sql.get('UPDATE vector_store_files SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?').run(owner);
    }
  }

  /** Ends a run; false when the row was deleted, cancelled or re-queued meanwhile (the run is stale). */
  finish(
    row: StoreFileRow,
    outcome: { status: 'completed'; usageBytes: number; chunks: number } | { status: 'failed'; code: string; message: string },
  ): boolean {
    const statement =
      outcome.status === 'completed'
        ? this.sql
            .get(
              "UPDATE vector_store_files SET status = 'completed', usage_bytes = ?, chunk_count = ?, lease_owner = NULL, lease_until = NULL WHERE seq = ? AND generation = ? AND status = 'in_progress'",
            )
            .run(outcome.usageBytes, outcome.chunks, row.seq, row.generation)
        : this.sql
            .get(
              "UPDATE vector_store_files SET status = 'failed', last_error_code = ?, last_error_message = ?, usage_bytes = 0, lease_owner = NULL, lease_until = NULL WHERE seq = ? AND generation = ? AND status = 'in_progress'",
            )
            .run(outcome.code, outcome.message, row.seq, row.generation);
    return statement.changes > 0;
  }

  /** Cancels the in-progress files of a batch; returns the keys cancelled. */
  cancelBatch(batchId: string, storeId: string): string[] {
    return this.sql
      .get<[string, string], { file_id: string }>(
        `UPDATE vector_store_files SET status = 'cancelled', lease_owner = NULL, lease_until = NULL WHERE store_id = ? AND status = 'in_progress'
           AND file_id IN (SELECT file_id FROM file_batch_files WHERE batch_id = ?) RETURNING file_id`,
      )
      .all(storeId, batchId)
      .map((row) => row.file_id);
  }

  countInProgress(storeIds: string[]): number {
    if (storeIds.length === 0) return 0;
    const marks = storeIds.map(() => '?').join(', ');
    return (
      this.sql
        .get(`SELECT COUNT(*) AS n FROM vector_store_files WHERE status = 'in_progress' AND store_id IN (${marks})`)
        .get(...storeIds) as { n: number }
    ).n;
  }

  /** Lists a store's files (optionally one batch's), newest first by default, cursors are file ids. */
  list(storeId: string, query: ListQuery & { filter?: unknown }, batchId?: string): ListPage<StoreFileObject> {
    if (query.filter !== undefined && query.filter !== '' && !(STORE_FILE_STATUSES as readonly unknown[]).includes(query.filter)) {
      throw new InvalidRequestError(`Invalid value for 'filter': expected one of ${STORE_FILE_STATUSES.join(', ')}.`, 'filter');
    }
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['f.store_id = ?'];
    const params: unknown[] = [storeId];
    if (query.filter) conditions.push('f.status = ?'), params.push(query.filter);
    if (batchId) conditions.push('f.file_id IN (SELECT file_id FROM file_batch_files WHERE batch_id = ?)'), params.push(batchId);
    const cursor = (id: string, op: string) => {
      conditions.push(`f.seq ${op} (SELECT seq FROM vector_store_files WHERE store_id = ? AND file_id = ?)`);
      params.push(storeId, id);
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = this.sql
      .get(
        `SELECT f.* FROM vector_store_files f WHERE ${conditions.join(' AND ')} ORDER BY f.seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      )
      .all(...params, limit + 1) as StoreFileRow[];
    const data = rows.slice(0, limit).map(toStoreFileObject);
    return {
      object: 'list',
      data,
      first_id: data[0]?.id ?? null,
      last_id: data[data.length - 1]?.id ?? null,
      has_more: rows.length > limit,
    };
  }
}

export function toStoreFileObject(row: StoreFileRow): StoreFileObject {
  return {
    id: row.file_id,
    object: 'vector_store.file',
    usage_bytes: row.usage_bytes,
    created_at: row.created_at,
    vector_store_id: row.store_id,
    status: row.status,
    last_error: row.last_error_code ? { code: row.last_error_code, message: row.last_error_message ?? '' } : null,
    chunking_strategy: {
      type: 'static',
      static: { max_chunk_size_tokens: row.chunk_max_tokens, chunk_overlap_tokens: row.chunk_overlap_tokens },
    },
    attributes: row.attributes ? JSON.parse(row.attributes) : {},
  };
}
