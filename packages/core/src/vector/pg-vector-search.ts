import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import type { MetaRow } from './pg-vector-index';

/** One store to search: its meta, the files a filter leaves (null = none, undefined = all), and their chunk count. */
export interface StoreScope {
  meta: MetaRow;
  files?: string[] | null;
  chunks: number;
}

export interface PgVectorSearchOptions {
  db: SqlClient;
  log: Logger;
  m: number;
  efConstruction: number;
  /** A fixed beam (`FATHOM_HNSW_EF_SEARCH`; `approximateBeam` clamps it to `MAX_EF_SEARCH`); undefined: it follows the index. */
  efSearch?: number;
  exactSearchLimit: number;
}

/** pgvector indexes `vector` columns of at most 2,000 dimensions with HNSW; larger vectors are searched exactly. */
const MAX_HNSW_DIMENSIONS = 2000;
/** Most rows an iterative index scan may visit for one store (pgvector's default is 20,000). */
const MAX_SCAN_TUPLES = 1_000_000;

/** pgvector's text form of a vector, with float32 precision. */
export function vectorLiteral(vector: Float32Array): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) out += (i ? ',' : '') + Number(vector[i]!.toPrecision(9));
  return `${out}]`;
}

/**
 * Session settings of an approximate search, for the transaction it runs in (`SET LOCAL`): the beam,
 * the iterative scan and its bound (`maxScan`; undefined = no iterative scans), and no sorting. Fathom
 * chose the index itself (the store is too large for an exact scan), so the plan must walk the HNSW
 * index: with sorting off, reading the store's rows through the B-tree on `store_id` and sorting them
 * by distance (an exact scan of a large store, what the planner picks when the table has no statistics
 * or under-estimates the store) is never cheaper than the index scan.
 */
export async function applyApproximateSettings(tx: SqlClient, ef: number, maxScan: number | undefined): Promise<void> {
  await tx.get("SELECT set_config('hnsw.ef_search', ?, true) AS ef, set_config('enable_sort', 'off', true) AS sort", [String(ef)]);
  if (maxScan !== undefined) {
    await tx.get(
      "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true) AS mode, set_config('hnsw.max_scan_tuples', ?, true) AS scan",
      [String(maxScan)],
    );
  }
}

/** pgvector's largest `hnsw.ef_search` (it accepts 1..1000); a larger configured beam is clamped to it. */
export const MAX_EF_SEARCH = 1000;
/** The least beam when none is configured: ef 200 kept recall@8 0.974 at 20k chunks. */
const DEFAULT_EF_SEARCH = 200;
/** Rows of the index per unit of beam when none is configured: ef 1000 reached recall@8 0.993 at 100k chunks. */
const ROWS_PER_BEAM = 100;

/**
 * The beam (`hnsw.ef_search`) of an approximate search, at least the rows asked for and at most pgvector's
 * 1000. For a scope that is the whole index of its vector size it is the configured `efSearch`
 * (`FATHOM_HNSW_EF_SEARCH`) or, unset, one that grows with the index: `max(200, rows / 100)` (at 100k
 * chunks of the scale corpus ef 200 reached recall@8 0.698, 400 0.858, 1000 0.993). Either widens as the
 * scope's share of the index shrinks (`beam x sqrt(spread)`: a scan of a shared index or a filtered one
 * keeps fewer of the candidates it walks; ef 200 -> 1000 took a 4% store from 0.92 to 0.975).
 */
export function approximateBeam(efSearch: number | undefined, limit: number, rowsOfSize: number, spread: number): number {
  const grown = efSearch === undefined ? Math.ceil(rowsOfSize / ROWS_PER_BEAM) : 0;
  const widened = Math.ceil((efSearch ?? DEFAULT_EF_SEARCH) * Math.sqrt(spread));
  return Math.min(MAX_EF_SEARCH, Math.max(limit, widened, grown));
}

/** The statement of an approximate search of `scope`: the `limit` nearest rows by the HNSW index of its vector size. */
export function approximateStatement(scope: StoreScope, vector: string, limit: number): { sql: string; params: unknown[] } {
  const dimensions = scope.meta.dimensions;
  return {
    sql: `SELECT id, (embedding::vector(${dimensions})) <=> CAST(? AS vector(${dimensions})) AS distance FROM vector_chunks
         WHERE dimensions = ${dimensions} AND store_id = ?${scope.files ? ' AND file_id = ANY(?)' : ''}
         ORDER BY distance LIMIT ?`,
    params: [vector, scope.meta.store_id, ...(scope.files ? [scope.files] : []), limit],
  };
}

/**
 * The vector side of search on PostgreSQL. Each vector size has one HNSW index (cosine) over the
 * chunks of that size, shared by every store; a store is searched either
 * - exactly (distance to each of its chunks, through the B-tree on `store_id`) when it, or the part a
 *   filter leaves, holds at most `max(exactSearchLimit, sqrt(depth × chunks of that size))` chunks — a
 *   small store in a large table, where an approximate scan would have to walk past most of the table;
 * - else by the HNSW index with pgvector's iterative index scan (`hnsw.iterative_scan = relaxed_order`):
 *   the scan continues past rows of other stores and files until `depth` rows of this one are found,
 *   up to `hnsw.max_scan_tuples`, with a beam (`hnsw.ef_search`: the configured one, else one that grows with
 *   the index) widened by the square root of the index's size over the scope's (`approximateBeam`). Without iterative
 *   scans (pgvector < 0.8) it asks for proportionally more neighbours instead.
 * The rule and its measurements are in docs/decisions/2026-11-22-postgres-vector-filtering.md.
 */
export class PgVectorSearch {
  private readonly ready = new Map<number, Promise<void>>();
  private iterative?: Promise<boolean>;

  constructor(private readonly options: PgVectorSearchOptions) {}

  /** Creates the HNSW index of a vector size on first use (no-op above 2,000 dimensions). */
  ensureIndex(dimensions: number): Promise<void> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_HNSW_DIMENSIONS) return Promise.resolve();
    let pending = this.ready.get(dimensions);
    if (!pending) {
      const { m, efConstruction } = this.options;
      pending = this.options.db
        .run(
          `CREATE INDEX IF NOT EXISTS vector_chunks_hnsw_${dimensions} ON vector_chunks
           USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efConstruction})
           WHERE dimensions = ${dimensions}`,
        )
        .then(
          () => undefined,
          (error: { code?: string }) => {
            // Two nodes creating it at once: the loser sees a duplicate; the index exists either way.
            if (error.code === '42P07' || error.code === '23505') return;
            this.ready.delete(dimensions);
            throw error;
          },
        );
      this.ready.set(dimensions, pending);
    }
    return pending;
  }

  /** Nearest chunk ids of every store to its query vector, merged by similarity (best first). */
  async nearest(scopes: StoreScope[], vectors: Map<string, Float32Array>, depth: number): Promise<number[]> {
    const sizes = await this.rowsBySize();
    const found: Array<{ id: number; distance: number }> = [];
    for (const scope of scopes) {
      if (scope.files === null) continue;
      const { meta } = scope;
      const vector = vectorLiteral(vectors.get(meta.store_id)!);
      const k = Math.min(depth, scope.chunks);
      if (k <= 0) continue;
      const rowsOfSize = Math.max(sizes.get(meta.dimensions) ?? 0, scope.chunks);
      const exactUpTo = Math.max(this.options.exactSearchLimit, Math.sqrt(depth * rowsOfSize));
      const rows =
        scope.chunks <= exactUpTo || meta.dimensions > MAX_HNSW_DIMENSIONS
          ? await this.exact(scope, vector, k)
          : await this.approximate(scope, vector, k, rowsOfSize);
      for (const row of rows) found.push({ id: Number(row.id), distance: Number(row.distance) });
    }
    return found.sort((a, b) => a.distance - b.distance || a.id - b.id).map((entry) => entry.id);
  }

  private exact(scope: StoreScope, vector: string, k: number) {
    return this.options.db.all<{ id: number; distance: number }>(
      `SELECT id, embedding <=> CAST(? AS vector) AS distance FROM vector_chunks
       WHERE store_id = ?${scope.files ? ' AND file_id = ANY(?)' : ''} ORDER BY distance, id LIMIT ?`,
      [vector, scope.meta.store_id, ...(scope.files ? [scope.files] : []), k],
    );
  }

  private async approximate(scope: StoreScope, vector: string, k: number, rowsOfSize: number) {
    const { efSearch, db } = this.options;
    const dimensions = scope.meta.dimensions;
    await this.ensureIndex(dimensions);
    const iterative = await this.supportsIterativeScans();
    // The share of the index that belongs to this scope sets how far a scan must go to find k of its rows.
    const spread = Math.ceil(rowsOfSize / Math.max(1, scope.chunks));
    const limit = iterative ? k : Math.min(scope.chunks, 1000, Math.ceil(k * 1.5 * spread));
    const ef = approximateBeam(efSearch, limit, rowsOfSize, spread);
    const maxScan = Math.min(MAX_SCAN_TUPLES, Math.max(20_000, 4 * ef * spread));
    return db.transaction(async (tx) => {
      await applyApproximateSettings(tx, ef, iterative ? maxScan : undefined);
      const { sql, params } = approximateStatement(scope, vector, limit);
      return tx.all<{ id: number; distance: number }>(sql, params);
    });
  }

  /** Chunks per vector size (the rows each HNSW index holds). */
  private async rowsBySize(): Promise<Map<number, number>> {
    const rows = await this.options.db.all<{ dimensions: number; chunks: number }>(
      'SELECT dimensions, SUM(chunk_count) AS chunks FROM vector_index_meta GROUP BY dimensions',
    );
    return new Map(rows.map((row) => [Number(row.dimensions), Number(row.chunks)]));
  }

  /** Whether the server's pgvector has iterative index scans (0.8.0 and later); warns once when not. */
  private supportsIterativeScans(): Promise<boolean> {
    this.iterative ??= this.options.db
      .get<{ version: string }>("SELECT extversion AS version FROM pg_extension WHERE extname = 'vector'")
      .then((row) => {
        const [major = 0, minor = 0] = (row?.version ?? '0').split('.').map(Number);
        const supported = major > 0 || minor >= 8;
        if (!supported) {
          this.options.log.warn(
            `pgvector ${row?.version} has no iterative index scans (0.8.0+): filtered searches of large stores ask HNSW for more neighbours instead; upgrade pgvector for better recall.`,
          );
        }
        return supported;
      });
    return this.iterative;
  }
}
