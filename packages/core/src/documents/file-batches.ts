import type { Database } from '../db';
import { StatementCache } from './statement-cache';
import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { FileCounts } from './vector-stores';

/** A file batch object as the SDK types it. */
export interface FileBatchObject {
  id: string;
  object: 'vector_store.files_batch';
  created_at: number;
  vector_store_id: string;
  status: 'in_progress' | 'completed' | 'cancelled' | 'failed';
  file_counts: FileCounts;
}

interface BatchRow {
  id: string;
  store_id: string;
  account_id: string;
  cancelled: number;
  created_at: number;
}

/** File batches: a named group of store files whose progress is aggregated from their rows. */
export class FileBatches {
  private readonly db: Database;
  private readonly sql: StatementCache;

  constructor(db: Database) {
    this.db = db;
    this.sql = new StatementCache(this.db);
  }

  create(accountId: string, storeId: string, fileIds: string[]): BatchRow {
    const row: BatchRow = { id: newId('vsfb_'), store_id: storeId, account_id: accountId, cancelled: 0, created_at: nowSeconds() };
    this.sql
      .get('INSERT INTO file_batches (id, store_id, account_id, cancelled, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(row.id, row.store_id, row.account_id, row.cancelled, row.created_at);
    const member = this.sql.get('INSERT OR IGNORE INTO file_batch_files (batch_id, file_id) VALUES (?, ?)');
    for (const fileId of fileIds) member.run(row.id, fileId);
    return row;
  }

  /** The batch of this store, or 404. */
  row(storeId: string, batchId: string): BatchRow {
    const row = this.sql.get<[string, string], BatchRow>('SELECT * FROM file_batches WHERE id = ? AND store_id = ?').get(batchId, storeId);
    if (!row) throw new NotFoundError('file batch', batchId);
    return row;
  }

  markCancelled(batchId: string): void {
    this.sql.get('UPDATE file_batches SET cancelled = 1 WHERE id = ?').run(batchId);
  }

  toObject(row: BatchRow): FileBatchObject {
    const counts: FileCounts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
    const rows = this.sql
      .get<[string, string], { status: keyof FileCounts; n: number }>(
        `SELECT f.status AS status, COUNT(*) AS n FROM file_batch_files b
           JOIN vector_store_files f ON f.store_id = ? AND f.file_id = b.file_id
         WHERE b.batch_id = ? GROUP BY f.status`,
      )
      .all(row.store_id, row.id);
    for (const { status, n } of rows) (counts[status] = n), (counts.total += n);
    const status: FileBatchObject['status'] = row.cancelled
      ? 'cancelled'
      : counts.in_progress > 0
        ? 'in_progress'
        : counts.total > 0 && counts.failed === counts.total
          ? 'failed'
          : 'completed';
    return {
      id: row.id,
      object: 'vector_store.files_batch',
      created_at: row.created_at,
      vector_store_id: row.store_id,
      status,
      file_counts: counts,
    };
  }
}
