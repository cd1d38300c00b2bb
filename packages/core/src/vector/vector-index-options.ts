import type { SqliteDatabase } from '../storage';
import type { Embedder } from '../embeddings';
import type { Logger } from '../internal/logger';
import type { KeywordIndexOptions } from './keyword-index';

export interface VectorIndexOptions {
  /** The SQLite database (its synchronous driver runs the index's statements; writes go through `immediate`). */
  db: SqliteDatabase;
  /** The current embedder: new chunks must come from it; queries of stores it built use it. */
  embedder: Embedder;
  /** HNSW files live under `<dataDir>/vector-index/`. */
  dataDir: string;
  log: Logger;
  hnsw?: {
    /**
     * Graph degree; default 16 (`graph-parameters.ts`). Set (with or without `efConstruction`), files built
     * with other parameters are rebuilt with these; unset, files of earlier defaults are used as built.
     */
    m?: number;
    /** Build-time beam; default 200 (`graph-parameters.ts`); set, rebuilds files built otherwise, like `m`. */
    efConstruction?: number;
    /** Search-time beam (at least the candidate depth); default: follows the store size, the depth and how the graphs were built (`searchBeam`). */
    efSearch?: number;
    /** Bytes of graphs kept in memory (least recently used idle ones are unloaded beyond it); default 2 GiB (`FATHOM_HNSW_MEMORY_MB`). */
    memoryBytes?: number;
    /** How often a long rebuild or catch-up of a graph logs its progress; default 10,000 ms. */
    progressIntervalMs?: number;
  };
  /**
   * A store of more than this many chunks is served by IVF indexes instead of HNSW graphs (built in the background
   * when it grows past it; it never switches back); default 50,000 (`FATHOM_IVF_ABOVE_CHUNKS`).
   */
  ivfAboveChunks?: number;
  keyword?: KeywordIndexOptions;
  /**
   * A store of at most this many chunks, or the part of a store a filter leaves, is searched by an exact
   * scan of its vectors instead of an HNSW graph (small stores then have no graph at all); default 512 (a scan reads ~5 µs per chunk).
   */
  exactSearchLimit?: number;
}
