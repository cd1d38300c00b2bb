/** Messages between the main thread (HnswClient) and the HNSW worker thread. */
export type HnswRequest =
  | { op: 'open'; store: string; path: string; dimensions: number; generation: number; capacity: number; m: number; efConstruction: number }
  | { op: 'add'; store: string; labels: number[]; vectors: Float32Array; generation: number }
  | { op: 'delete'; store: string; labels: number[]; generation: number }
  | { op: 'search'; store: string; vector: Float32Array; k: number; ef: number }
  | { op: 'drop'; store: string }
  | { op: 'flush' };

export type HnswReply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: string };

/** `open` answers whether the file on disk was current (`loaded`) or a fresh empty index needs a rebuild. */
export interface HnswOpenResult {
  loaded: boolean;
  count: number;
}

export interface HnswSearchResult {
  labels: number[];
  distances: number[];
}

/** Sidecar written next to each index file: the generation of the SQLite rows it reflects. */
export interface HnswSidecar {
  generation: number;
  dimensions: number;
}
