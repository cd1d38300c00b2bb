import type { LeaseQueue, LeasedTask } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { placeholders, type Repository, type SqlClient, SqlLeaseQueue, toPage } from '../storage';
import { currentRequestId } from '../observability/request-context';
import { currentTraceparent } from '../observability/tracing';
import type { StaticChunking } from './chunking';
import type { WriteFence } from '../vector';
import { emptyCounts, type FileCounts } from './vector-stores-repository';
import type { Attributes, STORE_FILE_STATUSES } from './wire/vector-store-files';

export type StoreFileStatus = (typeof STORE_FILE_STATUSES)[number];

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
  lease_owner: string | null;
  /** Lease identity of the current queue entry: new on every (re)queue. */
  run_id: string;
  /** The request that queued the file (`req_…`), and its W3C `traceparent` the `fathom.ingest` span continues. */
  request_id: string | null;
  traceparent: string | null;
}

/** One file to ingest, as the lease queue hands it out: `id` is the row's `run_id`. */
export interface IngestTask extends LeasedTask {
  row: StoreFileRow;
}

export type IngestOutcome =
  | { status: 'completed'; usageBytes: number; chunks: number }
  | { status: 'failed'; code: string; message: string };

export interface EnqueueInput {
  accountId: string;
  storeId: string;
  fileId: string;
  attributes: Attributes | null;
  chunking: StaticChunking;
  /** The new queue entry's lease identity. */
  runId: string;
  createdAt: number;
}

/**
 * Membership of files in stores. The rows `in_progress` are the durable ingestion queue, claimed
 * through `queue()` (leases on `run_id`); a run ends its row only while it still holds the lease and
 * the row is still the generation it was given.
 */
export interface StoreFilesRepository extends Repository<StoreFilesRepository> {
  /** Adds a file to a store, or re-queues it with new options (new generation and run id, attempts 0). */
  enqueue(input: EnqueueInput): Promise<StoreFileRow>;
  find(storeId: string, fileId: string): Promise<StoreFileRow | undefined>;
  /** Stores holding a file. */
  storesOf(fileId: string): Promise<string[]>;
  /** Files of a store still `in_progress`. */
  inProgress(storeId: string): Promise<string[]>;
  remove(storeId: string, fileId: string): Promise<boolean>;
  setAttributes(storeId: string, fileId: string, attributes: Attributes | null): Promise<void>;
  /**
   * Ends a run and answers the row's attributes as they are now (they may have changed while it ran);
   * undefined when the row was deleted, cancelled, re-queued or taken by another owner meanwhile.
   */
  finish(row: StoreFileRow, owner: string, outcome: IngestOutcome): Promise<{ attributes: string | null } | undefined>;
  /**
   * The condition under which a run may still publish its chunks: the row is the generation it was
   * given and the run holds its lease (on PostgreSQL the row is locked until the publish commits, so a
   * re-add or takeover waits for it). The index runs it inside its publishing transaction.
   */
  leaseFence(row: StoreFileRow, owner: string): WriteFence;
  /** Cancels the batch's files still `in_progress`; answers their ids. */
  cancelBatch(batchId: string, storeId: string): Promise<string[]>;
  countInProgress(storeIds: readonly string[]): Promise<number>;
  /** Counts of a batch's files by status. */
  batchCounts(storeId: string, batchId: string): Promise<FileCounts>;
  /** Status and chunk count of some files of a store (CLI progress). */
  statuses(storeId: string, fileIds: readonly string[]): Promise<Array<{ file_id: string; status: StoreFileStatus; chunk_count: number }>>;
  /** A page of a store's files (optionally one status, one batch), newest first by default; cursors are file ids. */
  list(
    storeId: string,
    query: ListQuery & { filter?: StoreFileStatus },
    batchId?: string,
  ): Promise<ListPage<StoreFileRow & { id: string }>>;
  /** Remembers that the index must still drop a file's chunks (done by `clearRemoval`). */
  requestRemoval(storeId: string, fileId: string, at: number): Promise<void>;
  /** Index removals requested at or before `before` (ms), oldest first. */
  pendingRemovals(before: number, limit: number): Promise<Array<{ store_id: string; file_id: string; requested_at: number }>>;
  /** Forgets a removal request (done, or superseded by a new add); with `requestedAt`, only that request. */
  clearRemoval(storeId: string, fileId: string, requestedAt?: number): Promise<void>;
  /** The lease queue ingestion workers claim from. */
  queue(): LeaseQueue<IngestTask>;
}

const CHUNK = 500;

/** The SQL of `vector_store_files` and `index_removals`, the same on SQLite and PostgreSQL. */
export class SqlStoreFilesRepository implements StoreFilesRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): StoreFilesRepository {
    return new SqlStoreFilesRepository(tx);
  }

  async enqueue(input: EnqueueInput): Promise<StoreFileRow> {
    const row = await this.db.get<StoreFileRow>(
      `INSERT INTO vector_store_files (store_id, file_id, account_id, status, attributes, chunk_max_tokens, chunk_overlap_tokens, created_at, run_id,
         request_id, traceparent)
       VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (store_id, file_id) DO UPDATE SET status = 'in_progress', attributes = excluded.attributes,
         chunk_max_tokens = excluded.chunk_max_tokens, chunk_overlap_tokens = excluded.chunk_overlap_tokens,
         last_error_code = NULL, last_error_message = NULL, usage_bytes = 0, chunk_count = 0, attempts = 0,
         lease_owner = NULL, lease_until = NULL, generation = vector_store_files.generation + 1, run_id = excluded.run_id,
         request_id = excluded.request_id, traceparent = excluded.traceparent
       RETURNING *`,
      [
        input.storeId,
        input.fileId,
        input.accountId,
        input.attributes ? JSON.stringify(input.attributes) : null,
        input.chunking.max_chunk_size_tokens,
        input.chunking.chunk_overlap_tokens,
        input.createdAt,
        input.runId,
        // The request that queued the file, so its ingestion continues that request's log lines and trace.
        currentRequestId(),
        currentTraceparent(),
      ],
    );
    return row!;
  }

  find(storeId: string, fileId: string): Promise<StoreFileRow | undefined> {
    return this.db.get<StoreFileRow>('SELECT * FROM vector_store_files WHERE store_id = ? AND file_id = ?', [storeId, fileId]);
  }

  async storesOf(fileId: string): Promise<string[]> {
    const rows = await this.db.all<{ store_id: string }>('SELECT store_id FROM vector_store_files WHERE file_id = ?', [fileId]);
    return rows.map((row) => row.store_id);
  }

  async inProgress(storeId: string): Promise<string[]> {
    const rows = await this.db.all<{ file_id: string }>(
      "SELECT file_id FROM vector_store_files WHERE store_id = ? AND status = 'in_progress'",
      [storeId],
    );
    return rows.map((row) => row.file_id);
  }

  async remove(storeId: string, fileId: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM vector_store_files WHERE store_id = ? AND file_id = ?', [storeId, fileId])).changes > 0;
  }

  async setAttributes(storeId: string, fileId: string, attributes: Attributes | null): Promise<void> {
    await this.db.run('UPDATE vector_store_files SET attributes = ? WHERE store_id = ? AND file_id = ?', [
      attributes ? JSON.stringify(attributes) : null,
      storeId,
      fileId,
    ]);
  }

  leaseFence(row: StoreFileRow, owner: string): WriteFence {
    return {
      sql: `SELECT 1 AS held FROM vector_store_files WHERE seq = ? AND generation = ? AND status = ? AND lease_owner = ?${
        this.db.dialect === 'postgres' ? ' FOR UPDATE' : ''
      }`,
      params: [row.seq, row.generation, 'in_progress', owner],
    };
  }

  finish(row: StoreFileRow, owner: string, outcome: IngestOutcome): Promise<{ attributes: string | null } | undefined> {
    const current = 'seq = ? AND generation = ? AND status = ? AND lease_owner = ?';
    const key = [row.seq, row.generation, 'in_progress', owner];
    return outcome.status === 'completed'
      ? this.db.get<{ attributes: string | null }>(
          `UPDATE vector_store_files SET status = 'completed', usage_bytes = ?, chunk_count = ?, lease_owner = NULL, lease_until = NULL
           WHERE ${current} RETURNING attributes`,
          [outcome.usageBytes, outcome.chunks, ...key],
        )
      : this.db.get<{ attributes: string | null }>(
          `UPDATE vector_store_files SET status = 'failed', last_error_code = ?, last_error_message = ?, usage_bytes = 0, chunk_count = 0,
             lease_owner = NULL, lease_until = NULL
           WHERE ${current} RETURNING attributes`,
          [outcome.code, outcome.message, ...key],
        );
  }

  async cancelBatch(batchId: string, storeId: string): Promise<string[]> {
    const rows = await this.db.all<{ file_id: string }>(
      `UPDATE vector_store_files SET status = 'cancelled', lease_owner = NULL, lease_until = NULL
       WHERE store_id = ? AND status = 'in_progress' AND file_id IN (SELECT file_id FROM file_batch_files WHERE batch_id = ?)
       RETURNING file_id`,
      [storeId, batchId],
    );
    return rows.map((row) => row.file_id);
  }

  async countInProgress(storeIds: readonly string[]): Promise<number> {
    if (storeIds.length === 0) return 0;
    const row = await this.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM vector_store_files WHERE status = 'in_progress' AND store_id IN ${placeholders(storeIds.length)}`,
      storeIds,
    );
    return Number(row?.n ?? 0);
  }

  async batchCounts(storeId: string, batchId: string): Promise<FileCounts> {
    const counts = emptyCounts();
    const rows = await this.db.all<{ status: keyof FileCounts; n: number }>(
      `SELECT f.status AS status, COUNT(*) AS n FROM file_batch_files b
         JOIN vector_store_files f ON f.store_id = ? AND f.file_id = b.file_id
       WHERE b.batch_id = ? GROUP BY f.status`,
      [storeId, batchId],
    );
    for (const { status, n } of rows) {
      counts[status] = Number(n);
      counts.total += Number(n);
    }
    return counts;
  }

  async statuses(storeId: string, fileIds: readonly string[]) {
    const out: Array<{ file_id: string; status: StoreFileStatus; chunk_count: number }> = [];
    for (let i = 0; i < fileIds.length; i += CHUNK) {
      const slice = fileIds.slice(i, i + CHUNK);
      out.push(
        ...(await this.db.all<{ file_id: string; status: StoreFileStatus; chunk_count: number }>(
          `SELECT file_id, status, chunk_count FROM vector_store_files WHERE store_id = ? AND file_id IN ${placeholders(slice.length)}`,
          [storeId, ...slice],
        )),
      );
    }
    return out;
  }

  async list(
    storeId: string,
    query: ListQuery & { filter?: StoreFileStatus },
    batchId?: string,
  ): Promise<ListPage<StoreFileRow & { id: string }>> {
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['f.store_id = ?'];
    const params: unknown[] = [storeId];
    if (query.filter) {
      conditions.push('f.status = ?');
      params.push(query.filter);
    }
    if (batchId) {
      conditions.push('f.file_id IN (SELECT file_id FROM file_batch_files WHERE batch_id = ?)');
      params.push(batchId);
    }
    const cursor = (id: string, op: string) => {
      conditions.push(`f.seq ${op} (SELECT seq FROM vector_store_files WHERE store_id = ? AND file_id = ?)`);
      params.push(storeId, id);
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = await this.db.all<StoreFileRow>(
      `SELECT f.* FROM vector_store_files f WHERE ${conditions.join(' AND ')} ORDER BY f.seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...params, limit + 1],
    );
    return toPage(rows, limit, (row) => ({ ...row, id: row.file_id }));
  }

  async requestRemoval(storeId: string, fileId: string, at: number): Promise<void> {
    await this.db.run(
      `INSERT INTO index_removals (store_id, file_id, requested_at) VALUES (?, ?, ?)
       ON CONFLICT (store_id, file_id) DO UPDATE SET requested_at = excluded.requested_at`,
      [storeId, fileId, at],
    );
  }

  pendingRemovals(before: number, limit: number) {
    return this.db.all<{ store_id: string; file_id: string; requested_at: number }>(
      'SELECT store_id, file_id, requested_at FROM index_removals WHERE requested_at <= ? ORDER BY requested_at LIMIT ?',
      [before, limit],
    );
  }

  async clearRemoval(storeId: string, fileId: string, requestedAt?: number): Promise<void> {
    if (requestedAt === undefined) {
      await this.db.run('DELETE FROM index_removals WHERE store_id = ? AND file_id = ?', [storeId, fileId]);
    } else {
      await this.db.run('DELETE FROM index_removals WHERE store_id = ? AND file_id = ? AND requested_at = ?', [
        storeId,
        fileId,
        requestedAt,
      ]);
    }
  }

  queue(): LeaseQueue<IngestTask> {
    return new SqlLeaseQueue<IngestTask>(this.db, {
      table: 'vector_store_files',
      idColumn: 'run_id',
      waiting: "status = 'in_progress' AND lease_owner IS NULL",
      working: "status = 'in_progress' AND lease_owner IS NOT NULL",
      order: 'seq',
      toTask: (row) => {
        const storeFile = row as unknown as StoreFileRow;
        return { id: storeFile.run_id, attempts: Number(storeFile.attempts), row: storeFile };
      },
    });
  }
}
