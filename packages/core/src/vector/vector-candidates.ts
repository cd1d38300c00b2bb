import type { Database } from '../db';
import type { HnswSearchResult } from './hnsw-protocol';
import { type GraphParameters, SHARDS, type StoreGraphs } from './store-graphs';
import type { FileSelection } from './store-files';
import { blobToVector, dot } from './vector-blob';

/** How a store's vector side is searched, decided per store and search. */
export interface VectorPlanOptions {
  /** A store, or the part of it a filter leaves, of at most this many chunks is scanned exactly. */
  exactSearchLimit: number;
  /** The HNSW beam for a search of `k` neighbours in a store of `chunks` chunks whose graphs were `built` so. */
  ef(chunks: number, k: number, built: GraphParameters | undefined): number;
}

/** One store to search: its chunk count and, with a filter, the files it leaves. */
export interface VectorScope {
  storeId: string;
  chunks: number;
  query: Float32Array;
  selection: FileSelection;
}

/**
 * In the worker, a filter applies to the beam (the `ef` nearest found, filtered) when the allowed share
 * leaves this many times the wanted neighbours in it; otherwise inside hnswlib's search.
 */
const BEAM_MARGIN = 2;

/**
 * A filtered walk inside the graph may judge this many candidates per allowed chunk (plus `VISIT_FLOOR`)
 * before it gives up for an exact scan of the allowed chunks, which the graph worker runs (`hnsw-scan.ts`).
 * Measured at 1M chunks (docs/performance.md, filtered recall): a filter leaving ~3,300 chunks of the query's
 * own topic is answered by the walk in ~7 ms of CPU, one leaving as many of another topic took 382 ms (p50;
 * 956 at p99), and one leaving 10,000 of other topics 183 ms (502 at p99), since the walk crosses the graph
 * before it finds them. A judged candidate costs ~1-2 µs and the scan ~10-14 µs a chunk; 2 per allowed chunk
 * answered both kinds faster than 4 (the unrelated 3,300: 42 / 80 ms, 10,000: 129 / 181 ms; the related ones
 * kept their ~6 ms at p50).
 */
const VISITS_PER_ALLOWED = 2;
const VISIT_FLOOR = 1_000;
/**
 * Above this many allowed chunks (per search, over the shards) the walk has no budget. The scan reads the
 * allowed rows from SQLite at ~10 µs of CPU a chunk at 1M (both shards' workers step every row of the ranges,
 * each scores its own), so it beats the walk only while the walk is costlier: measured at 1M, 10,000 chunks
 * of other topics 183 / 502 ms (p50 / p99) walking, 129 / 181 ms with the budget and scan; 33,000 chunks
 * 113 / 288 ms walking, 102 / 535 ms with them (budget 4 per chunk: a scan of 33,000 chunks costs more than
 * most walks).
 */
const SCAN_FALLBACK_MAX = 16_384;

/**
 * The vector side of a search: per store, the nearest chunks of the scope. A small scope (a small store,
 * or the few files a filter leaves) is scanned exactly; a large one asks the store's HNSW graph, with the
 * filter applied in the worker — to the beam when the allowed share of the store is large enough to fill
 * `k` from it, else inside the graph search.
 */
export class VectorCandidates {
  private readonly sql;
  /** The database file the graph workers read for a scan past a walk's budget (none in memory: walks keep no budget). */
  private readonly database: string | undefined;

  constructor(
    db: Database,
    private readonly graphs: StoreGraphs,
    private readonly options: VectorPlanOptions,
  ) {
    this.database = db.memory ? undefined : db.name;
    this.sql = {
      storeVectors: db.prepare<[string], { id: number; vector: Buffer }>('SELECT id, vector FROM vector_chunks WHERE store_id = ?'),
      rangeVectors: db.prepare<[string], { id: number; vector: Buffer }>(
        `SELECT c.id AS id, c.vector AS vector FROM json_each(?) r
         JOIN vector_chunks c ON c.id BETWEEN r.value ->> 0 AND r.value ->> 1`,
      ),
    };
  }

  /** Whether the store's vectors are searched exactly (no graph needed) for this scope size. */
  isExact(scopeChunks: number): boolean {
    return scopeChunks <= this.options.exactSearchLimit;
  }

  /** The chunks a filter or store size leaves for the vector side to search. */
  scopeSize(scope: Pick<VectorScope, 'chunks' | 'selection'>): number {
    const { selection } = scope;
    return selection.kind === 'none' ? 0 : selection.kind === 'some' ? selection.chunks : scope.chunks;
  }

  /**
   * The `k` nearest chunk ids over all scopes, best first. Every graph search is posted before this returns its
   * promise (no await before), so the caller overlaps them with its keyword search.
   */
  find(scopes: VectorScope[], k: number): Promise<number[]> {
    const found: Array<{ id: number; similarity: number }> = [];
    const scan = (scope: VectorScope) => {
      const { selection, query } = scope;
      const rows =
        selection.kind === 'some'
          ? this.sql.rangeVectors.all(JSON.stringify(pairs(selection.ranges)))
          : this.sql.storeVectors.all(scope.storeId);
      for (const row of rows) found.push({ id: row.id, similarity: dot(query, blobToVector(row.vector)) });
    };
    const walks: Array<Promise<HnswSearchResult>> = [];
    for (const scope of scopes) {
      const size = this.scopeSize(scope);
      if (size === 0) continue;
      if (this.isExact(size)) scan(scope);
      else walks.push(this.graphs.search(this.graphRequest(scope, Math.min(k, size))));
    }
    return Promise.all(walks).then((results) => {
      for (const result of results) result.labels.forEach((id, at) => found.push({ id, similarity: 1 - result.distances[at]! }));
      return found
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, k)
        .map((entry) => entry.id);
    });
  }

  /** The graph search of a scope for its `wanted` nearest: whole, or with its filter applied to the beam or inside the walk. */
  private graphRequest(scope: VectorScope, wanted: number): Parameters<StoreGraphs['search']>[0] {
    const { selection, query } = scope;
    const ef = Math.max(this.options.ef(scope.chunks, wanted, this.graphs.builtWith(scope.storeId)), wanted);
    if (selection.kind !== 'some') return { store: scope.storeId, vector: query, k: wanted, ef };
    const share = selection.chunks / scope.chunks;
    const inBeam = share * ef >= BEAM_MARGIN * wanted;
    return {
      store: scope.storeId,
      vector: query,
      k: wanted,
      // Inside the graph, hnswlib keeps a beam of allowed nodes only: the same beam costs about 1/share more.
      ef: inBeam ? ef : Math.max(wanted, Math.ceil(ef * Math.sqrt(share))),
      allowed: selection.ranges,
      filterIn: inBeam ? 'beam' : 'graph',
      // Per shard graph: each holds about 1/SHARDS of the allowed chunks.
      ...(inBeam || !this.database || selection.chunks > SCAN_FALLBACK_MAX
        ? {}
        : { visitBudget: VISIT_FLOOR + Math.ceil((VISITS_PER_ALLOWED * selection.chunks) / SHARDS), database: this.database }),
    };
  }
}

/** Flat `[first, last, …]` ranges as pairs. */
function pairs(ranges: Float64Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < ranges.length; i += 2) out.push([ranges[i]!, ranges[i + 1]!]);
  return out;
}
