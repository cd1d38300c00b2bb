import { join } from 'node:path';
import type { SqliteDatabase } from '../storage';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { Logger } from '../internal/logger';
import { validateAttributeFilter, type Attributes } from './attribute-filter';
import { ChunkWrites, type WriteStep } from './chunk-writes';
import { type FileSelection, StoreFiles } from './store-files';
import { type GraphRelease, IVF_ABOVE_CHUNKS, StoreGraphs, type StoreIndexKind } from './store-graphs';
import { VectorCandidates } from './vector-candidates';
import { KeywordIndex } from './keyword-index';
import type { FileChunksInput, SearchHit, StoreIndexInfo, StoreSearchOptions, VectorIndexContract } from './types';
import { readSearchOptions } from './search-options';
import { embedderMismatch, QueryEmbedders, REINDEX_MARK } from './store-embedders';
import { vectorToBlob } from './vector-blob';
import { graphParameters, searchBeam } from './graph-parameters';
import { PROGRESS_INTERVAL_MS } from './graph-build';
import type { VectorIndexOptions } from './vector-index-options';
import type { MetaRow } from './vector-rows';
import { ScopeSearch, type SearchScope } from './scope-search';
import { StoreLocks } from './store-locks';
import { type ExportedStore, exportStores } from './store-export';

export type { VectorIndexOptions } from './vector-index-options';

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
  private readonly files: StoreFiles;
  private readonly candidatesOf: VectorCandidates;
  private readonly exactSearchLimit: number;
  private readonly ivfAboveChunks: number;
  private readonly locks = new StoreLocks();
  private readonly queryEmbedders: QueryEmbedders;
  private readonly sql;
  private readonly scopeSearch: ScopeSearch;
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
    this.exactSearchLimit = options.exactSearchLimit ?? 512;
    this.ivfAboveChunks = options.ivfAboveChunks ?? IVF_ABOVE_CHUNKS;
    this.keywords = new KeywordIndex(this.db, {
      ...options.keyword,
      merges: options.keyword?.merges ?? {
        onError: (error) =>
          this.log.warn(`could not merge the keyword index's segments (${error.message}); trying again after the next write`),
      },
    });
    this.files = new StoreFiles(this.db);
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
      chunkTexts: db.prepare<[string, string], { text: string }>(
        'SELECT text FROM vector_chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index',
      ),
      textsOf: db.prepare<[string], { id: number; text: string }>(
        'SELECT id, text FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      ids: db.prepare<[string], number>('SELECT id FROM vector_chunks WHERE store_id = ?').pluck(),
      vectorsOf: db.prepare<[string], { id: number; vector: Buffer }>(
        'SELECT id, vector FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      setVector: db.prepare('UPDATE vector_chunks SET vector = ? WHERE id = ?'),
      deleteStoreChunks: db.prepare('DELETE FROM vector_chunks WHERE store_id = ?'),
      deleteStoreFiles: db.prepare('DELETE FROM vector_files WHERE store_id = ?'),
      deleteStoreRanges: db.prepare('DELETE FROM vector_file_ranges WHERE store_id = ?'),
      deleteMeta: db.prepare('DELETE FROM vector_index_meta WHERE store_id = ?'),
      markMeta: db.prepare('UPDATE vector_index_meta SET embedder_id = ?, dimensions = ?, generation = generation + 1 WHERE store_id = ?'),
    };
    const generation = (storeId: string) => this.sql.meta.get(storeId)?.generation;
    const { m, efConstruction, efSearch, memoryBytes, progressIntervalMs } = options.hnsw ?? {};
    this.graphs = new StoreGraphs({
      directory: join(options.dataDir, 'vector-index'),
      parameters: (chunks) => ({ ...graphParameters(chunks), ...(m ? { m } : {}), ...(efConstruction ? { efConstruction } : {}) }),
      // Files of earlier defaults are used as built (searched with their beam); parameters set by the operator rebuild them.
      keepBuilt: !m && !efConstruction,
      memoryBudget: memoryBytes ?? 2 * 1024 ** 3,
      progressIntervalMs: progressIntervalMs ?? PROGRESS_INTERVAL_MS,
      log: this.log,
      meta: (storeId) => this.sql.meta.get(storeId),
      ivfAboveChunks: this.ivfAboveChunks,
      source: {
        generation,
        ids: (storeId) => {
          const before = generation(storeId);
          const ids = Float64Array.from(this.sql.ids.all(storeId));
          return { ids, before, after: generation(storeId) };
        },
        vectors: (ids) => this.sql.vectorsOf.all(JSON.stringify(ids)),
      },
    });
    this.candidatesOf = new VectorCandidates(this.db, this.graphs, {
      exactSearchLimit: this.exactSearchLimit,
      ef: (chunks, k, built) => (efSearch ? Math.max(efSearch, k) : searchBeam(chunks, k, built)),
    });
    this.scopeSearch = new ScopeSearch(this.db, {
      files: this.files,
      keywords: this.keywords,
      candidates: this.candidatesOf,
      writes: this.writes,
    });
  }

  /** Stores whose chunks were embedded by another embedder than `embedderId` (`fathom reindex --all`). */
  async storesNotBuiltWith(embedderId: string): Promise<string[]> {
    return this.db
      .prepare<[string], { store_id: string }>('SELECT store_id FROM vector_index_meta WHERE embedder_id != ? ORDER BY store_id')
      .all(embedderId)
      .map((row) => row.store_id);
  }

  /**
   * Opens the IVF indexes of the largest stores (above `FATHOM_IVF_ABOVE_CHUNKS`, largest first) while they fit
   * in the index memory budget, so their first searches after a restart do not wait for them. `Fathom.start()`
   * runs it in the background; a failure is logged, and the store opens at its first use as before.
   */
  async preload(): Promise<void> {
    const started = performance.now();
    // `Fathom.start()` does not await this: nothing in it may reject (an unhandled rejection ends the process).
    try {
      const stores = this.db
        .prepare<[number], { store_id: string }>('SELECT store_id FROM vector_index_meta WHERE chunk_count > ? ORDER BY chunk_count DESC')
        .all(this.ivfAboveChunks)
        .map((row) => row.store_id);
      if (stores.length === 0) return;
      const opened = await this.graphs.preload(stores);
      if (opened) this.log.info(`opened the indexes of ${opened} large store(s) in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      this.log.warn(`could not open the large stores' indexes ahead of use (${(error as Error).message}); each opens at its first search`);
    }
  }

  /** Which embedder built a store, its dimensions and chunk count; null when nothing is indexed. */
  async storeInfo(storeId: string): Promise<StoreIndexInfo | null> {
    const meta = this.sql.meta.get(storeId);
    return meta ? { embedderId: meta.embedder_id, dimensions: meta.dimensions, chunks: meta.chunk_count } : null;
  }

  async addFileChunks(input: FileChunksInput): Promise<boolean> {
    const { storeId, fileId, chunks, fence } = input;
    return this.locks.exclusive(storeId, async () => {
      await this.adoptEmbedder(storeId);
      const meta = this.sql.meta.get(storeId)!;
      for (const chunk of chunks) {
        if (chunk.vector.length !== meta.dimensions) {
          throw new InvalidRequestError(
            `Chunk ${chunk.index} of file ${fileId} has ${chunk.vector.length} dimensions; store ${storeId} uses ${meta.dimensions}.`,
          );
        }
      }
      // A store that stays small has no graph (it is scanned exactly); one that outgrows the exact scan gets
      // its graph built from the rows already there before these are written.
      const release = await this.holdGraphForWrite(storeId, meta.chunk_count + chunks.length);
      try {
        const attributes = input.attributes ? JSON.stringify(input.attributes) : null;
        // Old rows out, new rows in, a few hundred per transaction; the file is hidden from searches meanwhile.
        // The fence is checked in the first transaction: this process orders its own writes, and processes
        // sharing the file database take its write lock one transaction at a time.
        const holds = fence ? () => this.db.prepare(fence.sql).get(...fence.params) !== undefined : undefined;
        return await this.writes.hidden(storeId, fileId, () =>
          this.writes.replace(
            storeId,
            fileId,
            chunks,
            () => this.sql.upsertFile.run(storeId, fileId, input.filename, attributes),
            async (step) => {
              this.keywords.noteWrites();
              if (!release) return;
              const flat = new Float32Array(step.added.length * meta.dimensions);
              step.added.forEach((_, row) => flat.set(chunks[step.start + row]!.vector, row * meta.dimensions));
              await this.graphs.apply(storeId, step, flat);
            },
            holds,
          ),
        );
      } finally {
        release?.();
      }
    });
  }

  async removeFile(storeId: string, fileId: string): Promise<void> {
    await this.locks.exclusive(storeId, async () => {
      const meta = this.sql.meta.get(storeId);
      if (!meta) {
        await this.database.immediate(() => this.sql.deleteFile.run(storeId, fileId));
        return;
      }
      const release = await this.holdGraphForWrite(storeId, meta.chunk_count);
      try {
        await this.writes.hidden(storeId, fileId, () =>
          this.writes.replace(
            storeId,
            fileId,
            [],
            () => this.sql.deleteFile.run(storeId, fileId),
            async (step: WriteStep) => {
              this.keywords.noteWrites();
              if (release) await this.graphs.apply(storeId, step);
            },
          ),
        );
      } finally {
        release?.();
      }
    });
  }

  async removeStore(storeId: string): Promise<void> {
    await this.locks.exclusive(storeId, async () => {
      await this.graphs.drop(storeId);
      await this.database.immediate(() => {
        this.sql.deleteStoreChunks.run(storeId);
        this.sql.deleteStoreFiles.run(storeId);
        this.sql.deleteStoreRanges.run(storeId);
        this.sql.deleteMeta.run(storeId);
      });
      this.files.forget(storeId);
      this.keywords.noteWrites();
    });
  }

  async setAttributes(storeId: string, fileId: string, attributes: Attributes): Promise<void> {
    await this.database.immediate(() => this.sql.setAttributes.run(attributes ? JSON.stringify(attributes) : null, storeId, fileId));
    this.files.forget(storeId);
  }

  /**
   * Every indexed file of every store with its chunks and vectors, store by store (`fathom migrate-data`
   * copies them to PostgreSQL without re-embedding). Reads one file at a time.
   */
  exportStores(): AsyncGenerator<ExportedStore> {
    return exportStores(this.db);
  }

  async fileChunks(storeId: string, fileId: string): Promise<string[]> {
    return this.sql.chunkTexts.all(storeId, fileId).map((row) => row.text);
  }

  async search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const { queries, limit, threshold, mode } = readSearchOptions(options);
    const { filters } = options;
    if (filters) validateAttributeFilter(filters);
    const depth = Math.max(40, limit * 2);
    const all: FileSelection = { kind: 'all' };
    const scopes: SearchScope[] = [...new Set(storeIds)]
      .map((id) => this.sql.meta.get(id))
      .filter((meta): meta is MetaRow => !!meta && meta.chunk_count > 0)
      .map((meta) => ({ meta, selection: filters ? this.files.select(meta.store_id, meta.generation, filters) : all }))
      .filter((scope) => scope.selection.kind !== 'none');
    if (scopes.length === 0) return [];
    // Keyword-only scores ignore similarity (its weight is 0), so the queries are not embedded. Embedding
    // first also refuses a store built by another embedder before its graph is loaded.
    const vectors = new Map<string, Map<string, Float32Array>>();
    if (mode !== 'keyword') {
      for (const query of queries) {
        const byStore = new Map<string, Float32Array>();
        for (const { meta } of scopes) byStore.set(meta.store_id, await this.queryEmbedders.embed(meta, query));
        vectors.set(query, byStore);
      }
    }
    const releases: GraphRelease[] = [];
    try {
      if (mode !== 'keyword') {
        for (const { meta, selection } of scopes) {
          if (this.candidatesOf.isExact(this.candidatesOf.scopeSize({ chunks: meta.chunk_count, selection }))) continue;
          // While this process writes the store, its graph follows those writes: nothing to catch up.
          const release = await this.graphs.hold(meta.store_id, 'search', !this.locks.isBusy(meta.store_id));
          if (release) releases.push(release);
        }
      }
      return await this.scopeSearch.run(scopes, queries, vectors, { mode, depth, limit, threshold, hybridWeights: options.hybridWeights });
    } finally {
      for (const release of releases) release();
    }
  }

  /**
   * Re-embeds every chunk of a store with the current embedder and rebuilds its HNSW index.
   * While it runs (or if it was interrupted) queries of the store fail with a message to run it again.
   */
  async reindex(storeId: string, onProgress?: (done: number, total: number) => void): Promise<{ chunks: number }> {
    return this.locks.exclusive(storeId, async () => {
      const meta = this.sql.meta.get(storeId);
      if (!meta) return { chunks: 0 };
      await this.database.immediate(() => this.sql.markMeta.run(`${REINDEX_MARK}${this.embedder.id}`, this.embedder.dimensions, storeId));
      await this.graphs.drop(storeId);
      // The ids once (the store's writes wait for this lock), then the texts by primary key: "the next rows after
      // id x of the store" made SQLite sort the store's rows past x for every batch (~0.9 s a batch at 1M).
      const ids = Float64Array.from(this.sql.ids.all(storeId)).sort();
      let done = 0;
      for (let at = 0; at < ids.length; at += 64) {
        const rows = this.sql.textsOf.all(JSON.stringify(Array.from(ids.subarray(at, at + 64))));
        if (rows.length === 0) continue;
        const { embeddings } = await this.embedder.embed({ values: rows.map((row) => row.text) });
        await this.database.immediate(() => rows.forEach((row, i) => this.sql.setVector.run(vectorToBlob(embeddings[i]!), row.id)));
        done += rows.length;
        onProgress?.(done, meta.chunk_count);
      }
      await this.database.immediate(() => this.sql.markMeta.run(this.embedder.id, this.embedder.dimensions, storeId));
      (await this.holdGraphForWrite(storeId, meta.chunk_count))?.();
      await this.graphs.flush();
      return { chunks: done };
    });
  }

  /** Drops a store's HNSW file and rebuilds it from the vectors in SQLite (stores scanned exactly have none). */
  async rebuild(storeId: string): Promise<void> {
    await this.locks.exclusive(storeId, async () => {
      await this.graphs.drop(storeId);
      (await this.holdGraphForWrite(storeId, this.sql.meta.get(storeId)?.chunk_count ?? 0))?.();
      await this.graphs.flush();
    });
  }

  /** What serves the store's vector side in this process: `hnsw` graphs, `ivf` indexes, or graphs while the IVFs are built (undefined: not opened). */
  vectorIndexOf(storeId: string): StoreIndexKind | undefined {
    return this.graphs.indexOf(storeId);
  }

  /** The HNSW graphs held in memory now: how many, and their estimated size. */
  graphsInMemory(): { stores: number; bytes: number } {
    return this.graphs.inMemory();
  }

  /** Writes every changed HNSW index to disk now (they are also saved a few seconds after changes). */
  flush(): Promise<void> {
    return this.graphs.flush();
  }

  async close(): Promise<void> {
    await this.locks.settled();
    this.keywords.close();
    // The HNSW files are a cache: one that could not be saved (a full disk) is rebuilt from SQLite when next used.
    await this.graphs.close().catch((error: Error) => {
      this.log.warn(`could not save the HNSW indexes at shutdown (${error.message}); they are rebuilt from SQLite when next used`);
    });
  }

  // ---- internals -------------------------------------------------------------------------------

  /** Binds an empty store to the current embedder; refuses to mix vectors of two embedders in one store. */
  private async adoptEmbedder(storeId: string): Promise<void> {
    const meta = this.sql.meta.get(storeId);
    if (meta && meta.chunk_count > 0 && meta.embedder_id !== this.embedder.id) throw embedderMismatch(meta, this.embedder.id);
    if (meta && meta.embedder_id === this.embedder.id) return;
    if (meta) await this.graphs.drop(storeId);
    // A new store starts at a generation no earlier store of the same id had, so a graph of that one never looks current.
    await this.database.immediate(() =>
      this.sql.upsertMeta.run(storeId, this.embedder.id, this.embedder.dimensions, meta?.generation ?? Date.now()),
    );
  }

  /**
   * Holds the store's graph for a write (up to date with the database) when the store has one in memory or
   * will be too large for an exact scan (`chunks`); undefined when the store is scanned exactly.
   */
  private async holdGraphForWrite(storeId: string, chunks: number): Promise<GraphRelease | undefined> {
    if (!this.graphs.isOpen(storeId) && this.candidatesOf.isExact(chunks)) return undefined;
    return this.graphs.hold(storeId, 'write');
  }
}
