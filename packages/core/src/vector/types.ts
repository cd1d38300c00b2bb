/** Attribute filter of the search API (OpenAI `filters`): comparison or compound, nested. */
export type AttributeFilter =
  | { type: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; key: string; value: string | number | boolean }
  | { type: 'in' | 'nin'; key: string; value: Array<string | number> }
  | { type: 'and' | 'or'; filters: AttributeFilter[] };

export interface StoreSearchOptions {
  query: string | string[];
  /** 1..50, default 10 (file_search caps it at 8). */
  maxNumResults?: number;
  filters?: AttributeFilter;
  /** 0..1; results scoring below are dropped. */
  scoreThreshold?: number;
  /** `none` disables the fusion re-ranking and returns vector order only. */
  ranker?: 'none' | 'auto' | 'default-2024-11-15';
  /** Which rankings to use; default `hybrid` (`ranker: 'none'` means `vector`). The benchmark measures each. */
  mode?: 'hybrid' | 'vector' | 'keyword';
  /** Relative weights of the two sides in hybrid fusion (Responses `ranking_options.hybrid_search`); default 1 and 1. */
  hybridWeights?: { embedding?: number; text?: number };
  /** Rewrite each query before searching (OpenAI `rewrite_query`); applied by the documents search (`StoreSearch`), ignored by indexes. */
  rewriteQuery?: boolean;
}

/** One search result, as `POST /v1/vector_stores/{id}/search` returns it (`filename`, score in 0..1). */
export interface SearchHit {
  file_id: string;
  filename: string;
  score: number;
  attributes: Record<string, string | number | boolean> | null;
  content: Array<{ type: 'text'; text: string }>;
}

/**
 * What assistants (file_search) and /v1/responses need from document search: search several stores of
 * one account together. Stores of other accounts answer 404 (NotFoundError), never results.
 */
export interface StoreSearcher {
  search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]>;
  /** Resolves when no file of these stores is `in_progress`, or after `timeoutMs`; returns true if idle. */
  waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean>;
}

/** One chunk handed to the index by the Ingestor, with its embedding. */
export interface IndexedChunk {
  /** Position of the chunk in its file (0-based). */
  index: number;
  text: string;
  tokens: number;
  vector: Float32Array;
}

/** Which embedder built a store's vectors, their dimensions, and how many chunks it holds. */
export interface StoreIndexInfo {
  embedderId: string;
  dimensions: number;
  chunks: number;
}

/**
 * A condition a write of chunks must still meet when it becomes visible: a query over the index's own
 * database that returns a row while it holds, run inside the transaction that publishes the chunks
 * (PostgreSQL: also locking what it reads, so a concurrent change waits for the publish). Ingestion
 * uses it so that a run which lost its lease — its file re-added or taken over on another node — cannot
 * publish stale chunks over the current run's.
 */
export interface WriteFence {
  sql: string;
  params: unknown[];
}

/** One file's chunks for one store, as `addFileChunks` takes them. */
export interface FileChunksInput {
  storeId: string;
  fileId: string;
  filename: string;
  attributes: Record<string, string | number | boolean> | null;
  chunks: IndexedChunk[];
  fence?: WriteFence;
}

/**
 * The index contract between the Ingestor (documents/) and the index (vector/): chunks with their
 * vectors per store, keyword and vector rankings fused into one 0..1 score, filters on file
 * attributes. Two implementations share one conformance suite: `VectorIndex` (SQLite: an HNSW graph
 * per store in a worker thread + FTS5) and `PgVectorIndex` (PostgreSQL: pgvector HNSW + full text).
 * The database keeps every chunk and vector, so anything derived can be rebuilt.
 */
export interface VectorIndexContract {
  /**
   * Adds (or replaces) the chunks of one file in one store; the file's chunks become searchable together.
   * With a `fence`, the write counts only while the fence holds; answers false (nothing of this write
   * stays) when it did not.
   */
  addFileChunks(input: FileChunksInput): Promise<boolean>;
  /** Removes a file's chunks from a store (no-op when absent). */
  removeFile(storeId: string, fileId: string): Promise<void>;
  /** Drops a whole store's chunks (and index files). */
  removeStore(storeId: string): Promise<void>;
  /** Replaces the attributes used by filters for one file in one store (no-op when the file has no chunks). */
  setAttributes(storeId: string, fileId: string, attributes: Record<string, string | number | boolean> | null): Promise<void>;
  /** Parsed text of a file in a store, chunk by chunk (for `GET .../files/{id}/content`). */
  fileChunks(storeId: string, fileId: string): Promise<string[]>;
  /** Hybrid search over several stores (ownership is checked by the caller). */
  search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]>;
  /** Which embedder built a store, its dimensions and chunk count; null when nothing is indexed. */
  storeInfo(storeId: string): Promise<StoreIndexInfo | null>;
  /** Stores whose chunks were embedded by another embedder than `embedderId` (`fathom reindex --all`). */
  storesNotBuiltWith(embedderId: string): Promise<string[]>;
  /** Re-embeds every chunk of a store with the current embedder (`fathom reindex`). */
  reindex(storeId: string, onProgress?: (done: number, total: number) => void): Promise<{ chunks: number }>;
  /** Opens the indexes of the largest stores ahead of their first search (`Fathom.start()`; never fails). */
  preload(): Promise<void>;
  close(): Promise<void>;
}
