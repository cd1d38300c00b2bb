import { InvalidRequestError } from '../errors';
import type { StaticChunking } from './chunking';
import { STORE_FILE_STATUSES, type StoreFileRow, type StoreFileStatus } from './store-files-repository';
import type { Attributes } from './validate';

export { STORE_FILE_STATUSES, type StoreFileRow, type StoreFileStatus } from './store-files-repository';

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

/** The `filter` of store-file lists: one of the statuses, or none (400 naming it otherwise). */
export function parseStatusFilter(filter: unknown): StoreFileStatus | undefined {
  if (filter === undefined || filter === '') return undefined;
  if (!(STORE_FILE_STATUSES as readonly unknown[]).includes(filter)) {
    throw new InvalidRequestError(`Invalid value for 'filter': expected one of ${STORE_FILE_STATUSES.join(', ')}.`, 'filter');
  }
  return filter as StoreFileStatus;
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
