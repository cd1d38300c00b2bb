/** Messages between the main thread (HnswClient) and the HNSW worker thread. */
export type HnswRequest =
  | {
      op: 'open';
      store: string;
      path: string;
      dimensions: number;
      /** The embedder that built the store's vectors: a file written for another one is not used. */
      embedderId: string;
      /** The store's generation in the database: a file that claims it is current. */
      generation: number;
      capacity: number;
      /** Parameters of a graph built new. */
      m: number;
      efConstruction: number;
      /**
       * A file built with other parameters is loaded as it is (true: the defaults, which changed over versions;
       * the beam follows the parameters it was built with) or rebuilt with these (false: set by the operator).
       */
      keepBuilt: boolean;
    }
  | { op: 'add'; store: string; labels: number[]; vectors: Float32Array; generation: number }
  | { op: 'delete'; store: string; labels: number[]; generation: number }
  | {
      op: 'search';
      store: string;
      vector: Float32Array;
      k: number;
      ef: number;
      /** Only these labels may be returned: sorted, disjoint, inclusive `[first, last]` ranges, flattened. */
      allowed?: Float64Array;
      /**
       * Where `allowed` applies: `beam` filters the `ef` nearest found (enough when the allowed share of
       * the graph times ef is well above k), `graph` inside hnswlib's search (finds k allowed ones at
       * any selectivity, at a much higher cost per visited node).
       */
      filterIn?: 'beam' | 'graph';
      /**
       * With `filterIn: 'graph'`: how many candidates the filter may judge. A walk whose allowed labels are
       * far from the query crosses much of the graph before it finds them (hundreds of ms at 1M chunks); past
       * the budget the filter lets every label through, so the walk ends, and when it holds fewer than `k`
       * allowed labels the worker scans this shard's allowed chunks exactly (`scanned`), reading their vectors
       * from `database`. Only with `database` and `shard`.
       */
      visitBudget?: number;
      /** The store's database file (SQLite), which the worker reads for the scan past `visitBudget`. */
      database?: string;
      /** The labels this graph holds (`label % count === index`): the scan reads only those. */
      shard?: { index: number; count: number };
      /**
       * For an IVF shard: the share of the allowed ids it can hold (1 / shards: labels are split by `id % shards`),
       * so its exact-or-lists choice counts the allowed labels it holds, not those of every shard.
       */
      share?: number;
    }
  | { op: 'labels'; store: string }
  /** Loads a shard's IVF file (`<store>.<shard>.ivf`) when it is usable; answers `empty` (and holds nothing) otherwise. */
  | { op: 'open-ivf'; store: string; path: string; dimensions: number; embedderId: string; generation: number }
  /** Starts an empty IVF over trained centroids (`lists x dimensions`); it claims no generation until a write step does. */
  | { op: 'create-ivf'; store: string; path: string; dimensions: number; embedderId: string; centroids: Float32Array }
  /**
   * The IVF under `from` (a retrained one, built beside the one serving) takes the place of the one under `to`,
   * which is dropped: from now on requests for `to` reach it, and it saves to its own path.
   */
  | { op: 'replace-ivf'; from: string; to: string }
  | { op: 'unload'; store: string }
  | { op: 'drop'; store: string }
  | { op: 'flush' };

export type HnswReply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: string };

/**
 * `open` answers what it found on disk: `current` (the file's generation is the database's: loaded, nothing
 * to do), `behind` (a usable file of an older or unknown generation: loaded, the caller brings it up to
 * date from the database) or `empty` (no usable file: an empty graph, the caller builds it; `reason` says why).
 */
export interface HnswOpenResult {
  state: 'current' | 'behind' | 'empty';
  reason?: string;
  /** The generation the file claimed (`behind`). */
  fileGeneration?: number;
  count: number;
  /** Memory the graph holds, estimated from its capacity (bytes). */
  bytes: number;
  /** The parameters of the graph held: the file's when it was loaded, else the request's. */
  m: number;
  efConstruction: number;
}

export interface HnswSearchResult {
  labels: number[];
  distances: number[];
  /** A filtered walk used its `visitBudget` short of `k` allowed labels: the answer is an exact scan of them. */
  scanned?: boolean;
}

/** Answer of `add`: the graph's estimated memory after the insert (it grows by resizing). */
export interface HnswAddResult {
  bytes: number;
}

/**
 * Sidecar written next to each index file: the generation of the database rows the file reflects
 * (-1 is never written: a graph known to be incomplete is not saved), its vector size, the embedder of
 * its vectors and the graph parameters it was built with.
 */
export interface HnswSidecar {
  generation: number;
  dimensions: number;
  embedderId?: string;
  m?: number;
  efConstruction?: number;
}

/** Answer of `open-ivf`: what the file was worth, and the index's size when loaded. */
export interface IvfOpenResult {
  state: 'current' | 'behind' | 'empty';
  reason?: string;
  fileGeneration?: number;
  count: number;
  bytes: number;
  /** The lists of the loaded index (what it was trained for: about the square root of its vectors then). */
  lists?: number;
}

/** Sidecar of an IVF file (`<store>.<shard>.ivf.json`): as the graphs', with the index's lists and default probes. */
export interface IvfSidecar {
  generation: number;
  dimensions: number;
  embedderId: string;
  lists: number;
  nprobe: number;
  count: number;
}
