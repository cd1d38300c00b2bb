import type { BatchRow } from './file-batches-repository';
import type { FileCounts } from './vector-stores-repository';

export type { BatchRow } from './file-batches-repository';

/** A file batch object as the SDK types it. */
export interface FileBatchObject {
  id: string;
  object: 'vector_store.files_batch';
  created_at: number;
  vector_store_id: string;
  status: 'in_progress' | 'completed' | 'cancelled' | 'failed';
  file_counts: FileCounts;
}

/**
 * A batch's object from its row and its files' counts. Status: `cancelled` after cancel, else
 * `in_progress` while any file is, `failed` when every file failed, else `completed`.
 */
export function toFileBatchObject(row: BatchRow, counts: FileCounts): FileBatchObject {
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
