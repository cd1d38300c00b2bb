import type { Repository, SqlClient } from '../storage';

export interface BatchRow {
  id: string;
  store_id: string;
  account_id: string;
  cancelled: number;
  created_at: number;
}

/** Storage of file batches: a named group of store files (their progress is read from the store files). */
export interface FileBatchesRepository extends Repository<FileBatchesRepository> {
  /** Creates the batch with its member files (duplicates counted once). */
  insert(row: BatchRow, fileIds: readonly string[]): Promise<void>;
  /** The batch of this store. */
  get(storeId: string, batchId: string): Promise<BatchRow | undefined>;
  markCancelled(batchId: string): Promise<void>;
}

/** The SQL of `file_batches` and `file_batch_files`, the same on SQLite and PostgreSQL. */
export class SqlFileBatchesRepository implements FileBatchesRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): FileBatchesRepository {
    return new SqlFileBatchesRepository(tx);
  }

  async insert(row: BatchRow, fileIds: readonly string[]): Promise<void> {
    await this.db.run('INSERT INTO file_batches (id, store_id, account_id, cancelled, created_at) VALUES (?, ?, ?, ?, ?)', [
      row.id,
      row.store_id,
      row.account_id,
      row.cancelled,
      row.created_at,
    ]);
    const unique = [...new Set(fileIds)];
    // Multi-row inserts of at most 500 members each.
    for (let i = 0; i < unique.length; i += 500) {
      const slice = unique.slice(i, i + 500);
      await this.db.run(
        `INSERT INTO file_batch_files (batch_id, file_id) VALUES ${slice.map(() => '(?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
        slice.flatMap((fileId) => [row.id, fileId]),
      );
    }
  }

  get(storeId: string, batchId: string): Promise<BatchRow | undefined> {
    return this.db.get<BatchRow>('SELECT id, store_id, account_id, cancelled, created_at FROM file_batches WHERE id = ? AND store_id = ?', [
      batchId,
      storeId,
    ]);
  }

  async markCancelled(batchId: string): Promise<void> {
    await this.db.run('UPDATE file_batches SET cancelled = 1 WHERE id = ?', [batchId]);
  }
}
