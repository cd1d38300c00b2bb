import type { Readable } from 'node:stream';
import type { FathomConfig } from '../config';
import type { Database } from '../db';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { Logger } from '../internal/logger';
import type { SearchHit, StoreSearcher, StoreSearchOptions, VectorIndexContract } from '../vector';
import { resolveChunking } from './chunking';
import { FileBatches, type FileBatchObject } from './file-batches';
import { FileStore, type FileObject, type StagedUpload } from './file-store';
import { IngestionQueue } from './ingestion-queue';
import { mergeChunks } from './merge-chunks';
import { Ingestor } from './ingestor';
import { StoreFiles, toStoreFileObject, type StoreFileObject } from './store-files';
import { validateAttributes, type Attributes } from './validate';
import { checkLengths, FIELD_LIMITS } from '../internal/field-limits';
import { VectorStores, type StoreRow, type VectorStoreObject } from './vector-stores';

export interface DocumentsOptions {
  db: Database;
  config: FathomConfig;
  embedder: Embedder;
  vectorIndex: VectorIndexContract;
  log: Logger;
}

/** One file to add: its id plus optional per-file attributes and chunking (wire shapes, validated here). */
export interface FileToAdd {
  file_id: string;
  attributes?: unknown;
  chunking_strategy?: unknown;
}

/** Caps of a vector store's text fields (characters). */
const STORE_TEXT_LIMITS = { name: FIELD_LIMITS.name, description: FIELD_LIMITS.description };

const positiveInt = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${value}'.`);
  return n;
};

/**
 * Document search for one database: files, vector stores, store files, file batches, the durable
 * ingestion queue, and search across stores of one account (`StoreSearcher`, used by assistants).
 * Every method takes the caller's account id; another account's ids answer 404 like missing ones.
 */
export class Documents implements StoreSearcher {
  readonly files: FileStore;
  readonly stores: VectorStores;
  readonly storeFiles: StoreFiles;
  readonly batches: FileBatches;
  readonly ingestor: Ingestor;
  readonly queue: IngestionQueue;
  private readonly db: Database;
  private readonly embedder: Embedder;
  private readonly index: VectorIndexContract;

  constructor(options: DocumentsOptions) {
    const { db, config, embedder, vectorIndex, log } = options;
    const env = config.env ?? {};
    this.db = db;
    this.embedder = embedder;
    this.index = vectorIndex;
    this.files = new FileStore({ db, dataDir: config.dataDir });
    this.stores = new VectorStores(db);
    this.storeFiles = new StoreFiles(db);
    this.batches = new FileBatches(db);
    this.ingestor = new Ingestor({
      embedder,
      vectorIndex,
      extract: {
        threads: env.FATHOM_EXTRACT_THREADS ? positiveInt(env.FATHOM_EXTRACT_THREADS, 2, 'FATHOM_EXTRACT_THREADS') : undefined,
        memoryMb: positiveInt(env.FATHOM_EXTRACT_MEMORY_MB, 512, 'FATHOM_EXTRACT_MEMORY_MB'),
        timeoutMs: positiveInt(env.FATHOM_EXTRACT_TIMEOUT_MS, 60_000, 'FATHOM_EXTRACT_TIMEOUT_MS'),
      },
    });
    this.queue = new IngestionQueue({
      db,
      storeFiles: this.storeFiles,
      files: this.files,
      ingestor: this.ingestor,
      vectorIndex,
      log,
      concurrency: positiveInt(env.FATHOM_INGEST_CONCURRENCY, 8, 'FATHOM_INGEST_CONCURRENCY'),
    });
  }

  /** Resumes the durable ingestion queue: files left `in_progress` by a stop or crash are finished. */
  start(): void {
    this.queue.start();
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.ingestor.close();
  }

  // ---- files ----

  stageUpload(source: Readable): Promise<StagedUpload> {
    return this.files.stage(source);
  }

  commitUpload(accountId: string, staged: StagedUpload, input: { filename: string; purpose: string }): FileObject {
    return this.files.commit(accountId, staged, input);
  }

  createFile(accountId: string, input: { filename: string; purpose: string; data: Uint8Array }): FileObject {
    return this.files.create(accountId, input);
  }

  getFile(accountId: string, fileId: string): FileObject {
    return this.files.get(accountId, fileId);
  }

  listFiles(accountId: string, query: ListQuery & { purpose?: string }): ListPage<FileObject> {
    return this.files.list(accountId, query);
  }

  /** Deletes a file, its bytes, and its chunks from every store that holds it (their counts follow). */
  async deleteFile(accountId: string, fileId: string): Promise<{ id: string; object: 'file'; deleted: true }> {
    this.files.row(accountId, fileId);
    const stores = this.storeFiles.storesOf(fileId);
    this.db.transaction(() => {
      for (const storeId of stores) this.storeFiles.remove(storeId, fileId);
      this.files.remove(accountId, fileId);
    })();
    for (const storeId of stores) {
      this.queue.abort(storeId, fileId);
      await this.index.removeFile(storeId, fileId);
    }
    return { id: fileId, object: 'file', deleted: true };
  }

  // ---- vector stores ----

  /** Creates a store; `file_ids` (at most 500) are added with `chunking_strategy`. */
  createStore(accountId: string, body: Record<string, unknown>): VectorStoreObject {
    checkLengths(body, STORE_TEXT_LIMITS);
    const fileIds = body.file_ids;
    if (fileIds !== undefined && (!Array.isArray(fileIds) || !fileIds.every((id) => typeof id === 'string'))) {
      throw new InvalidRequestError("Invalid 'file_ids': expected an array of file ids.", 'file_ids');
    }
    if (Array.isArray(fileIds) && fileIds.length > 500) {
      throw new InvalidRequestError("Invalid 'file_ids': at most 500 files can be added at creation.", 'file_ids');
    }
    const chunking = resolveChunking(body.chunking_strategy, this.embedder.maxInputTokens);
    for (const id of (fileIds as string[] | undefined) ?? []) this.files.row(accountId, id, 'file_ids');
    const row = this.db.transaction(() => {
      const store = this.stores.create(accountId, body, this.embedder.id);
      for (const fileId of new Set((fileIds as string[] | undefined) ?? [])) {
        this.storeFiles.enqueue({ accountId, storeId: store.id, fileId, attributes: null, chunking });
      }
      return store;
    })();
    this.queue.pump();
    return this.stores.toObject(row);
  }

  getStore(accountId: string, storeId: string): VectorStoreObject {
    return this.stores.toObject(this.stores.row(accountId, storeId));
  }

  /** Stores of the account whose id or name is `idOrName`, oldest first (CLI: `fathom ingest --store`, `fathom search`). */
  findStores(accountId: string, idOrName: string): VectorStoreObject[] {
    return this.db
      .prepare<[string, string, string], StoreRow>(
        'SELECT * FROM vector_stores WHERE account_id = ? AND (id = ? OR name = ?) ORDER BY rowid',
      )
      .all(accountId, idOrName, idOrName)
      .map((row) => this.stores.toObject(row));
  }

  /** Ids of the stores of any account whose id or name is `idOrName`, oldest first (operator CLI: `fathom reindex`). */
  storeIdsNamed(idOrName: string): string[] {
    return this.db
      .prepare<[string, string], { id: string }>('SELECT id FROM vector_stores WHERE id = ? OR name = ? ORDER BY created_at, rowid')
      .all(idOrName, idOrName)
      .map((row) => row.id);
  }

  /** Progress of some files of a store: status counts plus chunks indexed so far (CLI progress bar). */
  progress(storeId: string, fileIds: string[]): { done: number; failed: number; chunks: number; total: number } {
    const out = { done: 0, failed: 0, chunks: 0, total: fileIds.length };
    const statement = this.db.prepare<[string, string], { status: string; chunk_count: number }>(
      'SELECT status, chunk_count FROM vector_store_files WHERE store_id = ? AND file_id = ?',
    );
    for (const fileId of fileIds) {
      const row = statement.get(storeId, fileId);
      if (!row || row.status === 'in_progress') continue;
      out.done++;
      if (row.status !== 'completed') out.failed++;
      out.chunks += row.chunk_count;
    }
    return out;
  }

  listStores(accountId: string, query: ListQuery): ListPage<VectorStoreObject> {
    return this.stores.list(accountId, query);
  }

  updateStore(accountId: string, storeId: string, body: Record<string, unknown>): VectorStoreObject {
    checkLengths(body, STORE_TEXT_LIMITS);
    return this.stores.toObject(this.stores.update(accountId, storeId, body));
  }

  async deleteStore(accountId: string, storeId: string): Promise<{ id: string; object: 'vector_store.deleted'; deleted: true }> {
    this.stores.row(accountId, storeId);
    const running = this.storeFiles.list(storeId, { limit: 100_000, filter: 'in_progress' }).data;
    this.stores.remove(storeId);
    for (const file of running) this.queue.abort(storeId, file.id);
    await this.index.removeStore(storeId);
    return { id: storeId, object: 'vector_store.deleted', deleted: true };
  }

  // ---- store files ----

  /** Adds one file to a store; ingestion starts asynchronously. Re-adding re-ingests with the new options. */
  addStoreFile(accountId: string, storeId: string, body: FileToAdd): StoreFileObject {
    this.stores.row(accountId, storeId);
    const [prepared] = this.prepareFiles(accountId, [body], 'file_id');
    const row = this.storeFiles.enqueue({ accountId, storeId, ...prepared! });
    this.queue.pump();
    return toStoreFileObject(this.storeFiles.find(storeId, row.file_id) ?? row);
  }

  getStoreFile(accountId: string, storeId: string, fileId: string): StoreFileObject {
    this.stores.row(accountId, storeId);
    return toStoreFileObject(this.storeFiles.row(storeId, fileId));
  }

  listStoreFiles(accountId: string, storeId: string, query: ListQuery & { filter?: unknown }): ListPage<StoreFileObject> {
    this.stores.row(accountId, storeId);
    return this.storeFiles.list(storeId, query);
  }

  /** Replaces a store file's attributes (used by search filters). */
  updateStoreFile(accountId: string, storeId: string, fileId: string, body: { attributes?: unknown }): StoreFileObject {
    this.stores.row(accountId, storeId);
    this.storeFiles.row(storeId, fileId);
    if (!('attributes' in body)) throw new InvalidRequestError("Missing required parameter: 'attributes'.", 'attributes');
    const attributes = validateAttributes(body.attributes);
    this.storeFiles.setAttributes(storeId, fileId, attributes);
    this.index.setAttributes(storeId, fileId, attributes);
    return toStoreFileObject(this.storeFiles.row(storeId, fileId));
  }

  /** Removes a file from a store (the file itself stays). */
  async deleteStoreFile(
    accountId: string,
    storeId: string,
    fileId: string,
  ): Promise<{ id: string; object: 'vector_store.file.deleted'; deleted: true }> {
    this.stores.row(accountId, storeId);
    this.storeFiles.row(storeId, fileId);
    this.storeFiles.remove(storeId, fileId);
    this.queue.abort(storeId, fileId);
    await this.index.removeFile(storeId, fileId);
    return { id: fileId, object: 'vector_store.file.deleted', deleted: true };
  }

  /** The parsed text of a store file, rebuilt from its chunks (`vector_store.file_content.page`; empty until completed). */
  storeFileContent(accountId: string, storeId: string, fileId: string) {
    this.stores.row(accountId, storeId);
    this.storeFiles.row(storeId, fileId);
    const chunks = this.index.fileChunks(storeId, fileId);
    const data = chunks.length ? [{ type: 'text' as const, text: mergeChunks(chunks) }] : [];
    return { object: 'vector_store.file_content.page' as const, data, has_more: false, next_page: null };
  }

  // ---- file batches ----

  /** Adds many files at once: `file_ids` (with shared `attributes`/`chunking_strategy`) or `files[]`, 1..2000. */
  createBatch(accountId: string, storeId: string, body: Record<string, unknown>): FileBatchObject {
    this.stores.row(accountId, storeId);
    const { file_ids: ids, files } = body;
    if (ids !== undefined && files !== undefined) {
      throw new InvalidRequestError("Provide either 'file_ids' or 'files', not both.", 'file_ids');
    }
    let entries: FileToAdd[];
    if (files !== undefined) {
      if (!Array.isArray(files) || files.some((f) => typeof f !== 'object' || f === null)) {
        throw new InvalidRequestError("Invalid 'files': expected an array of {file_id, attributes?, chunking_strategy?}.", 'files');
      }
      entries = files as FileToAdd[];
    } else {
      if (ids === undefined) throw new InvalidRequestError("Missing required parameter: 'file_ids'.", 'file_ids');
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
        throw new InvalidRequestError("Invalid 'file_ids': expected an array of file ids.", 'file_ids');
      }
      entries = ids.map((file_id) => ({ file_id, attributes: body.attributes, chunking_strategy: body.chunking_strategy }));
    }
    const param = files !== undefined ? 'files' : 'file_ids';
    if (entries.length < 1 || entries.length > 2000) {
      throw new InvalidRequestError(`Invalid '${param}': expected between 1 and 2000 files.`, param);
    }
    const prepared = this.prepareFiles(accountId, entries, param);
    const batch = this.db.transaction(() => {
      const created = this.batches.create(
        accountId,
        storeId,
        prepared.map((file) => file.fileId),
      );
      for (const file of prepared) this.storeFiles.enqueue({ accountId, storeId, ...file });
      return created;
    })();
    this.queue.pump();
    return this.batches.toObject(batch);
  }

  getBatch(accountId: string, storeId: string, batchId: string): FileBatchObject {
    this.stores.row(accountId, storeId);
    return this.batches.toObject(this.batches.row(storeId, batchId));
  }

  /** Cancels a batch: its files still `in_progress` end `cancelled` (their partial work is discarded). */
  cancelBatch(accountId: string, storeId: string, batchId: string): FileBatchObject {
    this.stores.row(accountId, storeId);
    const batch = this.batches.row(storeId, batchId);
    const cancelled = this.db.transaction(() => {
      this.batches.markCancelled(batchId);
      return this.storeFiles.cancelBatch(batchId, storeId);
    })();
    for (const fileId of cancelled) {
      this.queue.abort(storeId, fileId);
      void this.index.removeFile(storeId, fileId).catch(() => {});
    }
    return this.batches.toObject({ ...batch, cancelled: 1 });
  }

  listBatchFiles(accountId: string, storeId: string, batchId: string, query: ListQuery & { filter?: unknown }): ListPage<StoreFileObject> {
    this.stores.row(accountId, storeId);
    this.batches.row(storeId, batchId);
    return this.storeFiles.list(storeId, query, batchId);
  }

  // ---- search (StoreSearcher) ----

  /** Hybrid search over stores of one account. Any store not of this account answers 404. */
  async search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const rows = storeIds.map((id) => this.stores.row(accountId, id));
    for (const row of rows) {
      if (this.stores.isExpired(row)) throw new InvalidRequestError(`Vector store '${row.id}' has expired.`, 'vector_store_id');
    }
    if (rows.length === 0) return [];
    const hits = await this.index.search(storeIds, options);
    for (const row of rows) this.stores.touch(row.id);
    return hits;
  }

  /** Resolves true once no file of these stores is `in_progress`, false after `timeoutMs`. */
  async waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean> {
    for (const id of storeIds) this.stores.row(accountId, id);
    const deadline = Date.now() + timeoutMs;
    // While one of the stores' files runs here, counting rows (a scan of the store's queue) is not needed.
    while (this.queue.isRunningIn(storeIds) || this.storeFiles.countInProgress(storeIds) > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.queue.events.once('settled', done);
      });
    }
    return true;
  }

  /** Validates files to add: each exists in the account (404 naming it), attributes and chunking valid. */
  private prepareFiles(accountId: string, entries: FileToAdd[], param: string) {
    return entries.map((entry, i) => {
      const where = param === 'file_id' ? '' : `${param}[${i}]`;
      const fileId = entry.file_id;
      if (typeof fileId !== 'string' || !fileId) {
        const name = param === 'file_ids' ? where : where ? `${where}.file_id` : 'file_id';
        throw new InvalidRequestError(`Missing required parameter: '${name}'.`, name);
      }
      this.files.row(accountId, fileId, param === 'files' ? `${where}.file_id` : param);
      const attributes: Attributes | null = validateAttributes(entry.attributes, param === 'files' ? `${where}.attributes` : 'attributes');
      const chunking = resolveChunking(
        entry.chunking_strategy,
        this.embedder.maxInputTokens,
        param === 'files' ? `${where}.chunking_strategy` : 'chunking_strategy',
      );
      return { fileId, attributes, chunking };
    });
  }
}
