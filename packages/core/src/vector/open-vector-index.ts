import type { VectorSettings } from '../config';
import type { Embedder } from '../embeddings';
import type { Logger } from '../internal/logger';
import { type SqlClient, SqliteDatabase } from '../storage';
import { PgVectorIndex } from './pg-vector-index';
import type { VectorIndexContract } from './types';
import { VectorIndex } from './vector-index';

export interface OpenVectorIndexOptions {
  /** Fathom's database: SQLite (graph files under `dataDir`) or PostgreSQL (pgvector). */
  db: SqlClient;
  embedder: Embedder;
  dataDir: string;
  log: Logger;
  /** The operator's vector settings (`FATHOM_HNSW_*`, `FATHOM_EXACT_SEARCH_CHUNKS`). */
  settings: VectorSettings;
}

/**
 * The vector index of the database's backend, with the operator's settings as that backend reads them.
 * `FATHOM_HNSW_EF_SEARCH` fixes the search beam on both: on SQLite the beam of each shard graph of a
 * store, on PostgreSQL `hnsw.ef_search` for a store that is the whole index of its vector size (pgvector
 * accepts at most 1000: a larger value is clamped there). `FATHOM_EXACT_SEARCH_CHUNKS` sets the size up to which a
 * store (or what a filter leaves of it) is scanned exactly on both; unset, each backend keeps its measured default
 * (SQLite 512; PostgreSQL 4096, raised further for a small store in a large index). The graph memory is SQLite's
 * alone: PostgreSQL holds its indexes in its own memory.
 */
export function openVectorIndex(options: OpenVectorIndexOptions): VectorIndexContract {
  const { db, embedder, dataDir, log, settings } = options;
  if (db instanceof SqliteDatabase) {
    return new VectorIndex({
      db,
      embedder,
      dataDir,
      log,
      hnsw: { memoryBytes: settings.hnswMemoryMb * 1024 ** 2, efSearch: settings.hnswEfSearch },
      exactSearchLimit: settings.exactSearchChunks,
      ivfAboveChunks: settings.ivfAboveChunks,
    });
  }
  return new PgVectorIndex({
    db,
    embedder,
    log,
    hnsw: { efSearch: settings.hnswEfSearch },
    exactSearchLimit: settings.exactSearchChunks,
  });
}
