import { join } from 'node:path';
import type { SqlClient } from '../storage';
import { DiskFileBlobs, type FileBlobs, SqlFileBlobs } from './file-blobs';
import { type FileBatchesRepository, SqlFileBatchesRepository } from './file-batches-repository';
import { type FilesRepository, SqlFilesRepository } from './files-repository';
import { SqlStoreFilesRepository, type StoreFilesRepository } from './store-files-repository';
import { SqlVectorStoresRepository, type VectorStoresRepository } from './vector-stores-repository';

/** Every repository of the documents capability, bound to one client. */
export interface DocumentsRepositories {
  files: FilesRepository;
  blobs: FileBlobs;
  stores: VectorStoresRepository;
  storeFiles: StoreFilesRepository;
  batches: FileBatchesRepository;
}

/**
 * The documents repositories over `db`. File bytes follow the backend: under `<dataDir>/files` on
 * SQLite, in the `file_blobs` table on PostgreSQL (every node of a cluster must read every file).
 */
export function createDocumentsRepositories(db: SqlClient, options: { dataDir: string }): DocumentsRepositories {
  const filesDir = join(options.dataDir, 'files');
  return {
    files: new SqlFilesRepository(db),
    blobs: db.dialect === 'sqlite' ? new DiskFileBlobs(filesDir) : new SqlFileBlobs(db, join(filesDir, '.tmp')),
    stores: new SqlVectorStoresRepository(db),
    storeFiles: new SqlStoreFilesRepository(db),
    batches: new SqlFileBatchesRepository(db),
  };
}

/** The same repositories bound to a transaction. */
export function inTransaction(repositories: DocumentsRepositories, tx: SqlClient): DocumentsRepositories {
  return {
    files: repositories.files.in(tx),
    blobs: repositories.blobs.in(tx),
    stores: repositories.stores.in(tx),
    storeFiles: repositories.storeFiles.in(tx),
    batches: repositories.batches.in(tx),
  };
}
