import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { matchesAttributeFilter, validateAttributeFilter, type Attributes } from './attribute-filter';
import { BestCandidates } from './best-candidates';
import { keywordCoverage } from './keyword-index';
import type { KeywordPlanOptions } from './keyword-plan';
import { PgChunkWrites } from './pg-chunk-writes';
import { PgKeywordSearch, type PgKeywordPlan } from './pg-keywords';
import { PgStatistics } from './pg-statistics';
import { MAX_EF_SEARCH, PgVectorSearch, type StoreScope, vectorLiteral } from './pg-vector-search';
import { readSearchOptions } from './search-options';
import { embedderMismatch, QueryEmbedders, REINDEX_MARK } from './store-embedders';
import type { FileChunksInput, SearchHit, StoreIndexInfo, StoreSearchOptions, VectorIndexContract } from './types';

export interface PgVectorIndexOptions {
  /** A PostgreSQL client (pgvector installed; the vector schema migrated). */
  db: SqlClient;
  /** The current embedder: new chunks must come from it; queries of stores it built use it. */
  embedder: Embedder;
  log: Logger;
  hnsw?: {
    /** Graph degree of the HNSW indexes; default 16. */
    m?: number;
    /** Build-time beam; default 64 (pgvector's default). */
    efConstruction?: number;
    /**
     * A fixed search-time beam (`hnsw.ef_search`) for a store that is the whole index of its vector size, widened
     * for a store that shares it or a filter; pgvector accepts at most 1000, so a larger one is clamped (with a
     * warning). Default: one that grows with the index, `max(200, rows / 100)` (`approximateBeam`).
     */
    efSearch?: number;
  };
  keyword?: KeywordPlanOptions;
  /** A store (or the part a filter leaves) of at most this many chunks is searched exactly; default 4096. */
  exactSearchLimit?: number;
}

export interface MetaRow {
  store_id: string;
  embedder_id: string;
  dimensions: number;
  chunk_count: number;
}

interface CandidateRow {
  id: number;
  store_id: string;
  file_id: string;
  text: string;
  filename: string;
  attributes: string | null;
  similarity: number;
}

/**
 * Hybrid search on PostgreSQL: pgvector HNSW (cosine) for vectors, full text search (`tsvector` + GIN)
 * for keywords, fused into one 0..1 score exactly as the SQLite `VectorIndex` does (same keyword
 * pruning, coverage, rank fusion, filters, thresholds and weights). Every process of a cluster uses
 * the same tables, so a file indexed on one node is searched on every other at once. Writes are
 * `PgChunkWrites` (a file's chunks appear at once), the vector side `PgVectorSearch`, the keyword side
 * `PgKeywordSearch`; `PgStatistics` analyses the table as ingestion grows it.
 */
export class PgVectorIndex implements VectorIndexContract {
  readonly embedder: Embedder;
  private readonly db: SqlClient;
  private readonly log: Logger;
  private readonly keywords: PgKeywordSearch;
  private readonly vectors: PgVectorSearch;
  private readonly writes: PgChunkWrites;
  private readonly statistics: PgStatistics;
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly queryEmbedders: QueryEmbedders;

  constructor(options: PgVectorIndexOptions) {
    if (options?.db?.dialect !== 'postgres') throw new Error('PgVectorIndex needs a PostgreSQL database (options.db).');
    if (!options.embedder) throw new Error('PgVectorIndex needs an embedder (options.embedder).');
    this.db = options.db;
    this.embedder = options.embedder;
    this.queryEmbedders = new QueryEmbedders(options.embedder);
    this.log = options.log;
    this.keywords = new PgKeywordSearch(this.db, options.keyword);
    this.writes = new PgChunkWrites(this.db);
    this.statistics = new PgStatistics(this.db, options.log);
    const efSearch = options.hnsw?.efSearch;
    if (efSearch !== undefined && efSearch > MAX_EF_SEARCH) {
      options.log.warn(
        `HNSW search beam ${efSearch} is above pgvector's largest hnsw.ef_search; PostgreSQL searches use ${MAX_EF_SEARCH}.`,
      );
    }
    this.vectors = new PgVectorSearch({
      db: this.db,
      log: options.log,
      m: options.hnsw?.m ?? 16,
      efConstruction: options.hnsw?.efConstruction ?? 64,
      efSearch,
      exactSearchLimit: options.exactSearchLimit ?? 4096,
    });
  }

  async storesNotBuiltWith(embedderId: string): Promise<string[]> {
    const rows = await this.db.all<{ store_id: string }>(
      'SELECT store_id FROM vector_index_meta WHERE embedder_id <> ? ORDER BY store_id',
      [embedderId],
    );
    return rows.map((row) => row.store_id);
  }

  async storeInfo(storeId: string): Promise<StoreIndexInfo | null> {
    const meta = await this.meta(storeId);
    return meta ? { embedderId: meta.embedder_id, dimensions: meta.dimensions, chunks: meta.chunk_count } : null;
  }

  async addFileChunks(input: FileChunksInput): Promise<boolean> {
    const { storeId, fileId, chunks } = input;
    const written = await this.exclusive(storeId, async () => {
      const meta = await this.adoptEmbedder(storeId);
      for (const chunk of chunks) {
        if (chunk.vector.length !== meta.dimensions) {
          throw new InvalidRequestError(
            `Chunk ${chunk.index} of file ${fileId} has ${chunk.vector.length} dimensions; store ${storeId} uses ${meta.dimensions}.`,
          );
        }
      }
      await this.vectors.ensureIndex(meta.dimensions);
      return (await this.writes.write({ ...input, dimensions: meta.dimensions })) !== 'fenced';
    });
    // Outside the store's lock: a bulk load keeps the planner's statistics current (else exact scans).
    await this.statistics.rowsWritten(chunks.length);
    return written;
  }

  async removeFile(storeId: string, fileId: string): Promise<void> {
    await this.exclusive(storeId, () => this.writes.remove(storeId, fileId));
  }

  async removeStore(storeId: string): Promise<void> {
    await this.exclusive(storeId, () =>
      this.db.transaction(async (tx) => {
        await tx.run('DELETE FROM vector_index_meta WHERE store_id = ?', [storeId]);
        await tx.run('DELETE FROM vector_files WHERE store_id = ?', [storeId]);
        await tx.run('DELETE FROM vector_chunks WHERE store_id = ?', [storeId]);
      }),
    );
  }

  async setAttributes(storeId: string, fileId: string, attributes: Attributes): Promise<void> {
    await this.db.run('UPDATE vector_files SET attributes = ? WHERE store_id = ? AND file_id = ?', [
      attributes ? JSON.stringify(attributes) : null,
      storeId,
      fileId,
    ]);
  }

  async fileChunks(storeId: string, fileId: string): Promise<string[]> {
    const rows = await this.db.all<{ text: string }>(
      `SELECT c.text FROM vector_chunks c
         JOIN vector_files f ON f.store_id = c.store_id AND f.file_id = c.file_id AND f.write_id = c.write_id
       WHERE c.store_id = ? AND c.file_id = ? ORDER BY c.chunk_index`,
      [storeId, fileId],
    );
    return rows.map((row) => row.text);
  }

  async search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const { queries, limit, threshold, mode } = readSearchOptions(options);
    const depth = Math.max(40, limit * 2);
    if (options.filters) validateAttributeFilter(options.filters);
    const unique = [...new Set(storeIds)];
    if (unique.length === 0) return [];
    const stores = (await this.db.all<MetaRow>('SELECT * FROM vector_index_meta WHERE store_id = ANY(?)', [unique]))
      .map(toMeta)
      .filter((meta) => meta.chunk_count > 0);
    if (stores.length === 0) return [];
    const scopes = await this.scopes(stores, options.filters);
    const searchable = scopes.filter((scope) => scope.files !== null);
    if (searchable.length === 0) return [];
    const best = new BestCandidates<CandidateRow>({ mode, depth, hybridWeights: options.hybridWeights });
    for (const query of queries) {
      const vectors = new Map<string, Float32Array>();
      if (mode !== 'keyword')
        for (const scope of searchable) vectors.set(scope.meta.store_id, await this.queryEmbedders.embed(scope.meta, query));
      const vectorList = mode === 'keyword' ? [] : await this.vectors.nearest(searchable, vectors, depth);
      const plan: PgKeywordPlan = mode === 'vector' ? { groups: [], match: null, total: 0 } : await this.keywords.plan(query);
      // Narrow in SQL only when every store is narrowed; otherwise rows are filtered below.
      const narrowed = searchable.every((scope) => scope.files) ? searchable.flatMap((scope) => scope.files!) : undefined;
      const keywordList =
        mode === 'vector'
          ? []
          : await this.keywords.search(
              plan,
              searchable.map((scope) => scope.meta.store_id),
              depth,
              narrowed,
            );
      const ids = [...new Set([...vectorList, ...keywordList])];
      if (ids.length === 0) continue;
      const rows = new Map((await this.candidates(ids, searchable, vectors)).map((row) => [row.id, row]));
      best.addQuery({
        rows,
        vectorList,
        keywordList,
        keywordActive: plan.groups.length > 0,
        similarity: (row) => row.similarity,
        coverage: (row) => keywordCoverage(plan, row.text),
      });
    }
    return best.top(threshold, limit).map(({ score, row }) => ({
      file_id: row.file_id,
      filename: row.filename,
      score: Math.round(score * 1e6) / 1e6,
      attributes: row.attributes ? JSON.parse(row.attributes) : null,
      content: [{ type: 'text' as const, text: row.text }],
    }));
  }

  /**
   * Re-embeds every chunk of a store with the current embedder. While it runs (or if it was
   * interrupted) queries and writes of the store fail with a message to run it again.
   */
  async reindex(storeId: string, onProgress?: (done: number, total: number) => void): Promise<{ chunks: number }> {
    return this.exclusive(storeId, async () => {
      const meta = await this.meta(storeId);
      if (!meta) return { chunks: 0 };
      const { dimensions } = this.embedder;
      await this.db.run('UPDATE vector_index_meta SET embedder_id = ?, dimensions = ? WHERE store_id = ?', [
        `${REINDEX_MARK}${this.embedder.id}`,
        dimensions,
        storeId,
      ]);
      await this.vectors.ensureIndex(dimensions);
      let after = 0;
      let done = 0;
      for (;;) {
        const rows = await this.db.all<{ id: number; text: string }>(
          'SELECT id, text FROM vector_chunks WHERE store_id = ? AND id > ? ORDER BY id LIMIT 64',
          [storeId, after],
        );
        if (rows.length === 0) break;
        const { embeddings } = await this.embedder.embed({ values: rows.map((row) => row.text) });
        await this.db.run(
          `UPDATE vector_chunks AS c SET embedding = CAST(v.embedding AS vector), dimensions = ?
           FROM (SELECT unnest(CAST(? AS bigint[])) AS id, unnest(CAST(? AS text[])) AS embedding) v WHERE c.id = v.id`,
          [dimensions, rows.map((row) => row.id), embeddings.map((vector) => vectorLiteral(vector))],
        );
        after = Number(rows.at(-1)!.id);
        done += rows.length;
        onProgress?.(done, meta.chunk_count);
      }
      await this.db.run('UPDATE vector_index_meta SET embedder_id = ? WHERE store_id = ?', [this.embedder.id, storeId]);
      return { chunks: done };
    });
  }

  /** Nothing to open: PostgreSQL holds the indexes. */
  async preload(): Promise<void> {}

  async close(): Promise<void> {
    await Promise.allSettled([...this.locks.values()]);
  }

  // ---- internals -------------------------------------------------------------------------------

  private async meta(storeId: string): Promise<MetaRow | undefined> {
    const row = await this.db.get<MetaRow>('SELECT * FROM vector_index_meta WHERE store_id = ?', [storeId]);
    return row && toMeta(row);
  }

  /** Binds an empty store to the current embedder; refuses to mix vectors of two embedders in one store. */
  private async adoptEmbedder(storeId: string): Promise<MetaRow> {
    const { id, dimensions } = this.embedder;
    await this.db.run(
      'INSERT INTO vector_index_meta (store_id, embedder_id, dimensions) VALUES (?, ?, ?) ON CONFLICT (store_id) DO NOTHING',
      [storeId, id, dimensions],
    );
    const meta = (await this.meta(storeId))!;
    if (meta.embedder_id === id) return meta;
    if (meta.chunk_count > 0 || meta.embedder_id.startsWith(REINDEX_MARK)) throw embedderMismatch(meta, id);
    await this.db.run('UPDATE vector_index_meta SET embedder_id = ?, dimensions = ? WHERE store_id = ? AND chunk_count = 0', [
      id,
      dimensions,
      storeId,
    ]);
    const adopted = (await this.meta(storeId))!;
    if (adopted.embedder_id !== id) throw embedderMismatch(adopted, id);
    return adopted;
  }

  /** Per store, the files a filter leaves (null = none, undefined = all) and how many chunks they hold. */
  private async scopes(stores: MetaRow[], filter: StoreSearchOptions['filters']): Promise<StoreScope[]> {
    if (!filter) return stores.map((meta) => ({ meta, chunks: meta.chunk_count }));
    const files = await this.db.all<{ store_id: string; file_id: string; attributes: string | null; chunk_count: number }>(
      'SELECT store_id, file_id, attributes, chunk_count FROM vector_files WHERE store_id = ANY(?)',
      [stores.map((meta) => meta.store_id)],
    );
    return stores.map((meta) => {
      const own = files.filter((file) => file.store_id === meta.store_id);
      const passing = own.filter((file) => matchesAttributeFilter(filter, file.attributes ? JSON.parse(file.attributes) : null));
      if (passing.length === 0) return { meta, files: null, chunks: 0 };
      if (passing.length === own.length) return { meta, chunks: meta.chunk_count };
      return {
        meta,
        files: passing.map((file) => file.file_id),
        chunks: passing.reduce((sum, file) => sum + Number(file.chunk_count), 0),
      };
    });
  }

  /** The visible chunks among `ids` that pass the scopes, with their cosine similarity to their store's query. */
  private async candidates(ids: number[], scopes: StoreScope[], vectors: Map<string, Float32Array>): Promise<CandidateRow[]> {
    const groups = new Map<string, StoreScope[]>();
    for (const scope of scopes) {
      const key = vectors.has(scope.meta.store_id) ? scope.meta.embedder_id : '';
      groups.set(key, [...(groups.get(key) ?? []), scope]);
    }
    const out: CandidateRow[] = [];
    for (const group of groups.values()) {
      const vector = vectors.get(group[0]!.meta.store_id);
      const rows = await this.db.all<CandidateRow>(
        `SELECT c.id, c.store_id, c.file_id, c.text, f.filename, f.attributes,
           ${vector ? '1 - (c.embedding <=> CAST(? AS vector))' : '0'} AS similarity
         FROM vector_chunks c
           JOIN vector_files f ON f.store_id = c.store_id AND f.file_id = c.file_id AND f.write_id = c.write_id
         WHERE c.id = ANY(?) AND c.store_id = ANY(?)`,
        [...(vector ? [vectorLiteral(vector)] : []), ids, group.map((scope) => scope.meta.store_id)],
      );
      const allowed = new Map(group.map((scope) => [scope.meta.store_id, scope.files ? new Set(scope.files) : undefined]));
      for (const row of rows) {
        const files = allowed.get(row.store_id);
        if (files && !files.has(row.file_id)) continue;
        out.push({ ...row, id: Number(row.id), similarity: Number(row.similarity) });
      }
    }
    return out;
  }

  /** Runs `task` after every earlier mutation of the same store in this process. */
  private exclusive<T>(storeId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(storeId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(task);
    const settled = run.catch(() => undefined);
    this.locks.set(storeId, settled);
    void settled.then(() => {
      if (this.locks.get(storeId) === settled) this.locks.delete(storeId);
    });
    return run;
  }
}

function toMeta(row: MetaRow): MetaRow {
  return { ...row, dimensions: Number(row.dimensions), chunk_count: Number(row.chunk_count) };
}
