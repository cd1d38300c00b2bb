import { type Env, parsePositiveInteger } from './env-values';

/** Settings of the vector index: the search beam and the exact-scan size on both backends; graph memory on SQLite. */
export interface VectorSettings {
  /** `FATHOM_HNSW_MEMORY_MB`: memory for HNSW graphs in one process, default 2048 (MiB); beyond it, idle graphs are saved and unloaded. */
  hnswMemoryMb: number;
  /** `FATHOM_HNSW_EF_SEARCH`: a fixed HNSW search beam (SQLite: per shard graph; PostgreSQL: `hnsw.ef_search`, at most 1000); unset = one that follows the store's size and the results asked for. */
  hnswEfSearch?: number;
  /**
   * `FATHOM_EXACT_SEARCH_CHUNKS`: stores (or the part of a store a filter leaves) of at most this many chunks are scanned
   * exactly; unset = each backend's measured default (SQLite 512, PostgreSQL 4096).
   */
  exactSearchChunks?: number;
  /** `FATHOM_IVF_ABOVE_CHUNKS` (SQLite): stores of more chunks are served by IVF indexes instead of HNSW graphs; default 50000. */
  ivfAboveChunks: number;
}

/** Reads the vector settings, with a message naming the variable for a bad value. */
export function readVectorSettings(env: Env): VectorSettings {
  return {
    hnswMemoryMb: parsePositiveInteger(env.FATHOM_HNSW_MEMORY_MB, 2048, 'FATHOM_HNSW_MEMORY_MB'),
    hnswEfSearch: env.FATHOM_HNSW_EF_SEARCH ? parsePositiveInteger(env.FATHOM_HNSW_EF_SEARCH, 0, 'FATHOM_HNSW_EF_SEARCH') : undefined,
    exactSearchChunks: env.FATHOM_EXACT_SEARCH_CHUNKS
      ? parsePositiveInteger(env.FATHOM_EXACT_SEARCH_CHUNKS, 0, 'FATHOM_EXACT_SEARCH_CHUNKS')
      : undefined,
    ivfAboveChunks: parsePositiveInteger(env.FATHOM_IVF_ABOVE_CHUNKS, 50_000, 'FATHOM_IVF_ABOVE_CHUNKS'),
  };
}
