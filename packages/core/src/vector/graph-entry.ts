/** The shapes `StoreGraphs` and the IVF switch (`ivf-switch.ts`) share: options, a store's state in memory. */
import type { Logger } from '../internal/logger';
import type { Applied, GraphSource } from './graph-build';

/** Graph degree and build-time beam. */
export interface GraphParameters {
  m: number;
  efConstruction: number;
}

/** What the graphs need to know of a store (its row in `vector_index_meta`). */
export interface GraphStoreMeta {
  dimensions: number;
  generation: number;
  chunk_count: number;
  embedder_id: string;
}

export interface StoreGraphsOptions {
  /** Index files live here (`<store>.<shard>.hnsw` + `.json` sidecars). */
  directory: string;
  /** The parameters of new graphs for a store of `chunks` chunks. */
  parameters(chunks: number): GraphParameters;
  /** Files built with other parameters are used as they are (true) or rebuilt with these (false). */
  keepBuilt: boolean;
  /** Bytes of graphs kept in memory: beyond it, the least recently used graphs nobody is using are saved and unloaded. */
  memoryBudget: number;
  /** How often a long build or catch-up logs its progress (ms). */
  progressIntervalMs: number;
  log: Logger;
  /** The store's state in the database (undefined = nothing indexed). */
  meta(storeId: string): GraphStoreMeta | undefined;
  source: GraphSource;
  /** A store of more than this many chunks is served by IVF indexes instead of HNSW graphs (`FATHOM_IVF_ABOVE_CHUNKS`). */
  ivfAboveChunks: number;
}

/** What serves a shard: its HNSW graph or an IVF index. */
export type ShardIndex = 'hnsw' | 'ivf';
/**
 * What serves a store, as operators see it: graphs, IVFs, graphs while the IVFs are built, or IVFs while one of
 * them is retrained for the store's size.
 */
export type StoreIndexKind = 'hnsw' | 'ivf' | 'ivf-building' | 'ivf-retraining';

export interface Entry {
  /** Searches may use the graphs (they are open in the workers, and any quick catch-up is done). */
  searchable: Promise<void>;
  /** No build or catch-up is going on (writes wait for this). */
  settled: Promise<void>;
  /** A build or catch-up is going on. */
  working: boolean;
  /** The database generation the graphs reflect exactly; undefined when unknown (brought up to date on next use). */
  applied: Applied;
  embedderId: string;
  dimensions: number;
  /** Estimated memory of each shard's graph. */
  bytes: number[];
  /**
   * The parameters the store's graphs were built with, known once opened: those of the shard built with the
   * smallest efConstruction, which needs the widest beam.
   */
  built?: GraphParameters;
  lastUsed: number;
  holds: number;
  /** What serves each shard. */
  kinds: ShardIndex[];
  /** IVFs are being built for the shards still on graphs (they answer meanwhile). */
  building: boolean;
  /** Lists of each shard's IVF (what it was trained for), where a shard is served by one: a retrain compares them with its size. */
  ivfLists?: number[];
  /** After a failed IVF build: no new one starts before this time (`performance.now()`), so a failure is not retried on every use. */
  ivfRetryAt?: number;
}
