import { join } from 'node:path';
import type { SqliteDatabase } from '../storage';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { Logger } from '../internal/logger';
import { matchesAttributeFilter, validateAttributeFilter, type Attributes } from './attribute-filter';
import { ChunkWrites } from './chunk-writes';
import { BestCandidates } from './best-candidates';
import { StoreGraphs } from './store-graphs';
import { KeywordIndex, keywordCoverage, type KeywordIndexOptions, type KeywordPlan } from './keyword-index';
import type { FileChunksInput, IndexedChunk, SearchHit, StoreIndexInfo, StoreSearchOptions, VectorIndexContract } from './types';
import { readSearchOptions } from './search-options';
import { embedderMismatch, QueryEmbedders, REINDEX_MARK } from './store-embedders';
import { blobToVector, dot, vectorToBlob } from './vector-blob';

export interface VectorIndexOptions {
  /** The SQLite database (its synchronous driver runs the index's statements; writes go through `immediate`). */
  db: SqliteDatabase;
  /** The current embedder: new chunks must come from it; queries of stores it built use it. */
  embedder: Embedder;
  /** HNSW files live under `<dataDir>/vector-index/`. */
  dataDir: string;
  log: Logger;
  hnsw?: {
    /** Graph degree; default 16. */
    m?: number;
    /** Build-time beam; default 100. */
    efConstruction?: number;
    /** Search-time beam (at least the candidate depth); default 800 (recall@8 0.998 at 100k chunks in the benchmark). */
    efSearch?: number;
  };
  keyword?: KeywordIndexOptions;
  /** A filter that leaves at most this many chunks of a store is answered by an exact scan instead of HNSW; default 4096. */
  exactSearchLimit?: number;
}

/** Most neighbours asked of HNSW for a filtered search (the rest of the store is filtered out after). */
const MAX_FILTERED_NEIGHBOURS = 1000;
interface MetaRow {
  store_id: string;
  embedder_id: string;
  dimensions: number;
  generation: number;
  chunk_count: number;
}

interface CandidateRow {
  id: number;
  store_id: string;
  file_id: string;
  text: string;
  /** Absent when only the keyword side scores. */
  vector?: Buffer;
}

/**
 * Hybrid search index: one HNSW graph per vector store (in a worker thread, persisted under the data
 * dir, rebuilt from SQLite when missing or stale) plus FTS5 BM25 over the chunk text, fused into one
 * 0..1 score. Each store remembers the embedder that built it.
 */
export class VectorIndex implements VectorIndexContract {
  readonly embedder: Embedder;
  private readonly database: SqliteDatabase;
  private readonly db: SqliteDatabase['raw'];
  private readonly log: Logger;
  private readonly graphs: StoreGraphs;
  private readonly keywords: KeywordIndex;
  private readonly efSearch: number;
  private readonly exactSearchLimit: number;
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly queryEmbedders: QueryEmbedders;
  private readonly sql;
  private readonly writes: ChunkWrites;

  constructor(options: VectorIndexOptions) {
    if (!options?.db) throw new Error('VectorIndex needs a database (options.db).');
    if (!options.embedder) throw new Error('VectorIndex needs an embedder (options.embedder).');
    if (!options.dataDir) throw new Error('VectorIndex needs a data directory (options.dataDir).');
    this.database = options.db;
    this.db = options.db.raw;
    this.embedder = options.embedder;
    this.queryEmbedders = new QueryEmbedders(options.embedder);
    this.log = options.log;
    this.efSearch = options.hnsw?.efSearch ?? 800;
    this.exactSearchLimit = options.exactSearchLimit ?? 4096;
    this.keywords = new KeywordIndex(this.db, options.keyword);
    this.writes = new ChunkWrites(this.database);
    const db = this.db;
    this.sql = {
      meta: db.prepare<[string], MetaRow>('SELECT * FROM vector_index_meta WHERE store_id = ?'),
      upsertMeta: db.prepare(
        `INSERT INTO vector_index_meta (store_id, embedder_id, dimensions, generation, chunk_count) VALUES (?, ?, ?, ?, 0)
         ON CONFLICT (store_id) DO UPDATE SET embedder_id = excluded.embedder_id, dimensions = excluded.dimensions`,
      ),
      upsertFile: db.prepare(
        `INSERT INTO vector_files (store_id, file_id, filename, attributes) VALUES (?, ?, ?, ?)
         ON CONFLICT (store_id, file_id) DO UPDATE SET filename = excluded.filename, attributes = excluded.attributes`,
      ),
      deleteFile: db.prepare('DELETE FROM vector_files WHERE store_id = ? AND file_id = ?'),
      setAttributes: db.prepare('UPDATE vector_files SET attributes = ? WHERE store_id = ? AND file_id = ?'),
      file: db.prepare<[string, string], { filename: string; attributes: string | null }>(
        'SELECT filename, attributes FROM vector_files WHERE store_id = ? AND file_id = ?',
      ),
      storeFiles: db.prepare<[string], { file_id: string; attributes: string | null }>(
        'SELECT file_id, attributes FROM vector_files WHERE store_id = ?',
      ),
      chunkTexts: db.prepare<[string, string], { text: string }>(
        'SELECT text FROM vector_chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index',
      ),
      vectorsAfter: db.prepare<[string, number, number], { id: number; vector: Buffer }>(
        'SELECT id, vector FROM vector_chunks WHERE store_id = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      textsAfter: db.prepare<[string, number, number], { id: number; text: string }>(
        'SELECT id, text FROM vector_chunks WHERE store_id = ? AND id > ? ORDER BY id LIMIT ?',
      ),
      setVector: db.prepare('UPDATE vector_chunks SET vector = ? WHERE id = ?'),
      chunkVectorsOfFiles: db.prepare<[string, string], { id: number; vector: Buffer }>(
        'SELECT id, vector FROM vector_chunks WHERE store_id = ? AND file_id IN (SELECT value FROM json_each(?))',
      ),
      countChunksOfFiles: db.prepare<[string, string], { count: number }>(
        'SELECT COUNT(*) AS count FROM vector_chunks WHERE store_id = ? AND file_id IN (SELECT value FROM json_each(?))',
      ),
      candidates: db.prepare<[string], CandidateRow>(
        'SELECT id, store_id, file_id, text, vector FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      candidateTexts: db.prepare<[string], CandidateRow>(
        'SELECT id, store_id, file_id, text FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      deleteStoreChunks: db.prepare('DELETE FROM vector_chunks WHERE store_id = ?'),
      deleteStoreFiles: db.prepare('DELETE FROM vector_files WHERE store_id = ?'),
      deleteMeta: db.prepare('DELETE FROM vector_index_meta WHERE store_id = ?'),
      markMeta: db.prepare('UPDATE vector_index_meta SET embedder_id = ?, dimensions = ?, generation = generation + 1 WHERE store_id = ?'),
    };
    this.graphs = new StoreGraphs({
      directory: join(options.dataDir, 'vector-index'),
      m: options.hnsw?.m ?? 16,
      efConstruction: options.hnsw?.efConstruction ?? 100,
      log: this.log,
      meta: (storeId) => this.sql.meta.get(storeId),
      vectorsAfter: (storeId, afterId, limit) => this.sql.vectorsAfter.all(storeId, afterId, limit),
    });
  }

  /** Stores whose chunks were embedded by another embedder than `embedderId` (`fathom reindex --all`). */
  async storesNotBuiltWith(embedderId: string): Promise<string[]> {
    return this.db
      .prepare<[string], { store_id: string }>('SELECT store_id FROM vector_index_meta WHERE embedder_id != ? ORDER BY store_id')
      .all(embedderId)
      .map((row) => row.store_id);
  }

  /** Which embedder built a store, its dimensions and chunk count; null when nothing is indexed. */
  async storeInfo(storeId: string): Promise<StoreIndexInfo | null> {
    const meta = this.sql.meta.get(storeId);
    return meta ? { embedderId: meta.embedder_id, dimensions: meta.dimensions, chunks: meta.chunk_count } : null;
  }

  async addFileChunks(input: FileChunksInput): Promise<boolean> {
    const { storeId, fileId, chunks, fence } = input;
    return this.exclusive(storeId, async () => {
      await this.adoptEmbedder(storeId);
      const meta = this.sql.meta.get(storeId)!;
      for (const chunk of chunks) {
        if (chunk.vector.length !== meta.dimensions) {
          throw new InvalidRequestError(
            `Chunk ${chunk.index} of file ${fileId} has ${chunk.vector.length} dimensions; store ${storeId} uses ${meta.dimensions}.`,
          );
        }
      }
      await this.graphs.ensure(storeId);
      const attributes = input.attributes ? JSON.stringify(input.attributes) : null;
      // Old rows out, new rows in, a few hundred per transaction; the file is hidden from searches
      // meanwhile. Intermediate HNSW messages carry generation -1 so a save in between never claims to be current.
      // The fence is checked in the first transaction: this process orders its own writes, and processes
      // sharing the file database take its write lock one transaction at a time.
      const holds = fence ? () => this.db.prepare(fence.sql).get(...fence.params) !== undefined : undefined;
      return this.writes.hidden(storeId, fileId, () =>
        this.writes.replace(
          storeId,
          fileId,
          chunks,
          () => this.sql.upsertFile.run(storeId, fileId, input.filename, attributes),
          async (step) => {
            this.keywords.noteWrites();
            if (step.removed.length) await this.graphs.delete(storeId, step.removed, step.added.length ? -1 : step.generation);
            if (!step.added.length) return;
            const flat = new Float32Array(step.added.length * meta.dimensions);
            step.added.forEach((_, row) => flat.set(chunks[step.start + row]!.vector, row * meta.dimensions));
            await this.graphs.add(storeId, step.added, flat, step.generation);
          },
          holds,
        ),
      );
    });
  }

  async removeFile(storeId: string, fileId: string): Promise<void> {
    await this.exclusive(storeId, async () => {
      if (!this.sql.meta.get(storeId)) {
        await this.database.immediate(() => this.sql.deleteFile.run(storeId, fileId));
        return;
      }
      await this.graphs.ensure(storeId);
      await this.writes.hidden(storeId, fileId, () =>
        this.writes.replace(
          storeId,
          fileId,
          [],
          () => this.sql.deleteFile.run(storeId, fileId),
          async (step) => {
            this.keywords.noteWrites();
            if (step.removed.length || step.generation >= 0) await this.graphs.delete(storeId, step.removed, step.generation);
          },
        ),
      );
    });
  }

  async removeStore(storeId: string): Promise<void> {
    await this.exclusive(storeId, async () => {
      await this.graphs.drop(storeId);
      await this.database.immediate(() => {
        this.sql.deleteStoreChunks.run(storeId);
        this.sql.deleteStoreFiles.run(storeId);
        this.sql.deleteMeta.run(storeId);
      });
      this.keywords.noteWrites();
    });
  }

  async setAttributes(storeId: string, fileId: string, attributes: Attributes): Promise<void> {
    await this.database.immediate(() => this.sql.setAttributes.run(attributes ? JSON.stringify(attributes) : null, storeId, fileId));
  }

  /**
   * Every indexed file of every store with its chunks and vectors, store by store (`fathom migrate-data`
   * copies them to PostgreSQL without re-embedding). Reads one file at a time.
   */
  async *exportStores(): AsyncGenerator<{
    storeId: string;
    embedderId: string;
    dimensions: number;
    files: AsyncGenerator<{ fileId: string; filename: string; attributes: Attributes; chunks: IndexedChunk[] }>;
  }> {
    const stores = this.db.prepare('SELECT store_id, embedder_id, dimensions FROM vector_index_meta ORDER BY store_id').all() as Array<{
      store_id: string;
      embedder_id: string;
      dimensions: number;
    }>;
    const filesOf = this.db.prepare('SELECT file_id, filename, attributes FROM vector_files WHERE store_id = ? ORDER BY file_id');
    const chunksOf = this.db.prepare(
      'SELECT chunk_index, text, tokens, vector FROM vector_chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index',
    );
    for (const store of stores) {
      const files = async function* () {
        const rows = filesOf.all(store.store_id) as Array<{ file_id: string; filename: string; attributes: string | null }>;
        for (const file of rows) {
          const chunks = (
            chunksOf.all(store.store_id, file.file_id) as Array<{ chunk_index: number; text: string; tokens: number; vector: Buffer }>
          ).map((row) => ({ index: row.chunk_index, text: row.text, tokens: row.tokens, vector: blobToVector(row.vector) }));
          yield { fileId: file.file_id, filename: file.filename, attributes: file.attributes ? JSON.parse(file.attributes) : null, chunks };
        }
      };
      yield { storeId: store.store_id, embedderId: store.embedder_id, dimensions: store.dimensions, files: files() };
    }
  }

  async fileChunks(storeId: string, fileId: string): Promise<string[]> {
    return this.sql.chunkTexts.all(storeId, fileId).map((row) => row.text);
  }

  async search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const { queries, limit, threshold, mode } = readSearchOptions(options);
    const depth = Math.max(40, limit * 2);
    const stores = [...new Set(storeIds)]
      .map((id) => this.sql.meta.get(id))
      .filter((meta): meta is MetaRow => !!meta && meta.chunk_count > 0);
    if (stores.length === 0) return [];
    const allowed = this.allowedFiles(stores, options.filters);
    const searchable = stores.filter((meta) => allowed.get(meta.store_id) !== null || !options.filters);
    const restricted = searchable.filter((meta) => allowed.get(meta.store_id));
    const best = new BestCandidates<CandidateRow>({ mode, depth, hybridWeights: options.hybridWeights });
    if (mode !== 'keyword') await Promise.all(searchable.map((meta) => this.graphs.ensure(meta.store_id)));
    const searchedChunks = searchable.reduce((sum, meta) => sum + meta.chunk_count, 0);
    for (const query of queries) {
      // Keyword-only scores ignore similarity (its weight is 0), so the query is not embedded.
      const vectors = new Map<string, Float32Array>();
      if (mode !== 'keyword') for (const meta of searchable) vectors.set(meta.store_id, await this.queryEmbedders.embed(meta, query));
      // The HNSW searches are posted to the worker first, so they run while FTS5 works on this thread.
      const vectorPending = mode === 'keyword' ? Promise.resolve([]) : this.vectorCandidates(searchable, allowed, vectors, depth);
      const plan: KeywordPlan = mode === 'vector' ? { groups: [], match: null, total: 0 } : this.keywords.plan(query);
      const keywordList =
        mode === 'vector'
          ? []
          : this.keywords.search(
              plan,
              searchable.map((meta) => meta.store_id),
              depth,
              // Narrow in SQL only when every store is narrowed; otherwise rows are filtered below.
              restricted.length && restricted.length === searchable.length
                ? restricted.flatMap((meta) => [...allowed.get(meta.store_id)!])
                : undefined,
              searchedChunks >= plan.total,
            );
      const vectorList = await vectorPending;
      const keywordIds = keywordList.map((hit) => hit.id);
      const ids = [...new Set([...vectorList, ...keywordIds])];
      if (ids.length === 0) continue;
      // Filters apply to the rows themselves; ranks are counted among the rows that pass.
      const passes = (row: CandidateRow) => {
        const files = allowed.get(row.store_id);
        if (this.writes.isBusy(row.store_id, row.file_id)) return false;
        return !options.filters || files === undefined || (files !== null && files.has(row.file_id));
      };
      // Keyword-only scores need no vectors: their rows are read without the 1.5 KB blob.
      const rows = new Map(
        (mode === 'keyword' ? this.sql.candidateTexts : this.sql.candidates)
          .all(JSON.stringify(ids))
          .filter(passes)
          .map((row) => [row.id, row]),
      );
      best.addQuery({
        rows,
        vectorList,
        keywordList: keywordIds,
        keywordActive: plan.groups.length > 0,
        similarity: (row) => (row.vector ? dot(vectors.get(row.store_id) ?? new Float32Array(0), blobToVector(row.vector)) : 0),
        coverage: (row) => keywordCoverage(plan, row.text),
      });
    }
    return best.top(threshold, limit).map(({ score, row }) => this.toHit(row, score));
  }

  /**
   * Re-embeds every chunk of a store with the current embedder and rebuilds its HNSW index.
   * While it runs (or if it was interrupted) queries of the store fail with a message to run it again.
   */
  async reindex(storeId: string, onProgress?: (done: number, total: number) => void): Promise<{ chunks: number }> {
    return this.exclusive(storeId, async () => {
      const meta = this.sql.meta.get(storeId);
      if (!meta) return { chunks: 0 };
      await this.database.immediate(() => this.sql.markMeta.run(`${REINDEX_MARK}${this.embedder.id}`, this.embedder.dimensions, storeId));
      await this.graphs.drop(storeId);
      let after = 0;
      let done = 0;
      for (;;) {
        const rows = this.sql.textsAfter.all(storeId, after, 64);
        if (rows.length === 0) break;
        const { embeddings } = await this.embedder.embed({ values: rows.map((row) => row.text) });
        await this.database.immediate(() => rows.forEach((row, i) => this.sql.setVector.run(vectorToBlob(embeddings[i]!), row.id)));
        after = rows.at(-1)!.id;
        done += rows.length;
        onProgress?.(done, meta.chunk_count);
      }
      await this.database.immediate(() => this.sql.markMeta.run(this.embedder.id, this.embedder.dimensions, storeId));
      await this.graphs.ensure(storeId);
      await this.graphs.flush();
      return { chunks: done };
    });
  }

  /** Drops a store's HNSW file and rebuilds it from the vectors in SQLite. */
  async rebuild(storeId: string): Promise<void> {
    await this.exclusive(storeId, async () => {
      await this.graphs.drop(storeId);
      await this.graphs.ensure(storeId);
      await this.graphs.flush();
    });
  }

  /** Writes every changed HNSW index to disk now (they are also saved a few seconds after changes). */
  flush(): Promise<void> {
    return this.graphs.flush();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.locks.values()]);
    this.keywords.close();
    // The HNSW files are a cache: one that could not be saved (a full disk) is rebuilt from SQLite when next used.
    await this.graphs.close().catch((error: Error) => {
      this.log.warn(`could not save the HNSW indexes at shutdown (${error.message}); they are rebuilt from SQLite when next used`);
    });
  }

  // ---- internals -------------------------------------------------------------------------------

  /** Runs `task` after every earlier mutation of the same store (mutations of one store never interleave). */
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

  /** Binds an empty store to the current embedder; refuses to mix vectors of two embedders in one store. */
  private async adoptEmbedder(storeId: string): Promise<void> {
    const meta = this.sql.meta.get(storeId);
    if (meta && meta.chunk_count > 0 && meta.embedder_id !== this.embedder.id) throw embedderMismatch(meta, this.embedder.id);
    if (meta && meta.embedder_id === this.embedder.id) return;
    if (meta) await this.graphs.drop(storeId);
    await this.database.immediate(() =>
      this.sql.upsertMeta.run(storeId, this.embedder.id, this.embedder.dimensions, meta?.generation ?? 0),
    );
  }

  /** Per store: null = no file passes the filter, undefined = every file passes, else the allowed file ids. */
  private allowedFiles(stores: MetaRow[], filter: StoreSearchOptions['filters']): Map<string, Set<string> | null | undefined> {
    const allowed = new Map<string, Set<string> | null | undefined>();
    if (!filter) return allowed;
    validateAttributeFilter(filter);
    for (const meta of stores) {
      const files = this.sql.storeFiles.all(meta.store_id);
      const passing = files
        .filter((file) => matchesAttributeFilter(filter, file.attributes ? JSON.parse(file.attributes) : null))
        .map((file) => file.file_id);
      allowed.set(meta.store_id, passing.length === 0 ? null : passing.length === files.length ? undefined : new Set(passing));
    }
    return allowed;
  }

  /**
   * Nearest chunks of every store, merged by similarity (best first): an exact scan when a filter
   * leaves few chunks, else HNSW — asked for proportionally more neighbours when a filter leaves a
   * fraction of the store, which the caller then filters (cheaper than hnswlib's per-label callback).
   */
  private async vectorCandidates(
    stores: MetaRow[],
    allowed: Map<string, Set<string> | null | undefined>,
    vectors: Map<string, Float32Array>,
    depth: number,
  ): Promise<number[]> {
    const found: Array<{ id: number; similarity: number }> = [];
    const pending: Array<Promise<{ labels: number[]; distances: number[] }>> = [];
    // No await before every search is posted: the caller overlaps them with its keyword search.
    for (const meta of stores) {
      const query = vectors.get(meta.store_id)!;
      const files = allowed.get(meta.store_id);
      if (files === null) continue;
      let k = Math.min(depth, meta.chunk_count);
      if (files) {
        const fileList = JSON.stringify([...files]);
        const count = this.sql.countChunksOfFiles.get(meta.store_id, fileList)!.count;
        if (count <= this.exactSearchLimit) {
          for (const row of this.sql.chunkVectorsOfFiles.all(meta.store_id, fileList)) {
            found.push({ id: row.id, similarity: dot(query, blobToVector(row.vector)) });
          }
          continue;
        }
        k = Math.min(meta.chunk_count, MAX_FILTERED_NEIGHBOURS, Math.ceil((depth * 1.5 * meta.chunk_count) / count));
      }
      pending.push(this.graphs.search(meta.store_id, query, k, Math.max(this.efSearch, k)));
    }
    for (const result of await Promise.all(pending)) {
      result.labels.forEach((id, i) => found.push({ id, similarity: 1 - result.distances[i]! }));
    }
    return found.sort((a, b) => b.similarity - a.similarity).map((entry) => entry.id);
  }

  private toHit(row: CandidateRow, score: number): SearchHit {
    const file = this.sql.file.get(row.store_id, row.file_id);
    return {
      file_id: row.file_id,
      filename: file?.filename ?? row.file_id,
      score: Math.round(score * 1e6) / 1e6,
      attributes: file?.attributes ? JSON.parse(file.attributes) : null,
      content: [{ type: 'text', text: row.text }],
    };
  }
}
