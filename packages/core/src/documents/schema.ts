import type { Schema } from '../db';

/**
 * Documents tables. `vector_store_files` doubles as the durable ingestion queue: a row whose status is
 * `in_progress` is work to do, in `seq` order; `generation` changes on every (re)queue so a stale run
 * can never overwrite a newer one. Counts and usage are always computed from these rows, never cached.
 */
export const documentsSchema: Schema = {
  component: 'documents',
  postgres: [],
  sqlite: [
    `CREATE TABLE files (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      filename TEXT NOT NULL,
      purpose TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX files_account ON files(account_id, purpose);
    CREATE TABLE vector_stores (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      name TEXT,
      description TEXT,
      metadata TEXT,
      expires_after_days INTEGER,
      embedder TEXT,
      last_active_at INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX vector_stores_account ON vector_stores(account_id);
    CREATE INDEX vector_stores_name ON vector_stores(name);
    CREATE TABLE vector_store_files (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      store_id TEXT NOT NULL REFERENCES vector_stores(id) ON DELETE CASCADE,
      file_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('in_progress', 'completed', 'failed', 'cancelled')),
      attributes TEXT,
      chunk_max_tokens INTEGER NOT NULL,
      chunk_overlap_tokens INTEGER NOT NULL,
      last_error_code TEXT,
      last_error_message TEXT,
      usage_bytes INTEGER NOT NULL DEFAULT 0,
      chunk_count INTEGER NOT NULL DEFAULT 0,
      attempts INTEGER NOT NULL DEFAULT 0,
      generation INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (store_id, file_id)
    );
    CREATE INDEX vector_store_files_queue ON vector_store_files(status, seq);
    CREATE INDEX vector_store_files_file ON vector_store_files(file_id);
    CREATE TABLE file_batches (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL REFERENCES vector_stores(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL,
      cancelled INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL
    );
    CREATE TABLE file_batch_files (
      batch_id TEXT NOT NULL REFERENCES file_batches(id) ON DELETE CASCADE,
      file_id TEXT NOT NULL,
      PRIMARY KEY (batch_id, file_id)
    );`,
    // Leases: two processes on one data dir (the server and `fathom ingest`) never run the same file.
    `ALTER TABLE vector_store_files ADD COLUMN lease_owner TEXT;
    ALTER TABLE vector_store_files ADD COLUMN lease_until INTEGER;`,
    // Covering index: a store's file_counts and usage_bytes are read from the index alone.
    `CREATE INDEX vector_store_files_counts ON vector_store_files(store_id, status, usage_bytes);`,
  ],
};
