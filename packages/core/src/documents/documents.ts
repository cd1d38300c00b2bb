import type { Readable } from 'node:stream';
import type { FathomConfig } from '../config';
import type { Embedder } from '../embeddings';
import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { SqlDatabase } from '../storage';
import type { SearchHit, StoreSearcher, StoreSearchOptions, VectorIndexContract } from '../vector';
import { resolveChunking } from './chunking';
import { createDocumentsRepositories, type DocumentsRepositories, inTransaction } from './documents-repositories';
import { DocumentsSweeper } from './documents-sweeper';
import { type FileBatchObject, toFileBatchObject } from './file-batches';
import { type FileInput, type FileObject, FileStore, type StagedUpload } from './file-store';
import { type FileToAdd, type PreparedFile, prepareFiles, readBatchEntries } from './files-to-add';
import { IngestionQueue } from './ingestion-queue';
import { Ingestor } from './ingestor';
import { mergeChunks } from './merge-chunks';
import { lexicalRewrite, type QueryRewriter } from './query-rewrite';
import { StoreSearch, type StoreSearchResult } from './store-search';
import { parseStatusFilter, type StoreFileObject, toStoreFileObject } from './store-files';
import { validateAttributes } from './validate';
import { type VectorStoreObject, VectorStores } from './vector-stores';
import type { VectorStoreCreateParams, VectorStoreUpdateParams } from './wire/vector-stores';

export interface DocumentsOptions {
  db: SqlDatabase;
  config: FathomConfig;
  embedder: Embedder;
  vectorIndex: VectorIndexContract;
  log: Logger;
  /** Rewrites queries of `rewrite_query: true` (a chat model); default: the lexical rewrite. */
  rewriteQuery?: QueryRewriter;
  /** Storage; default SQL over `db` (file bytes on disk for SQLite, in the database for PostgreSQL). */
  repositories?: DocumentsRepositories;
}

/**
 * Document search over one database: files, vector stores, store files, file batches, the durable
 * ingestion queue, and search across stores of one account (`StoreSearcher`, used by assistants).
 * Every method takes the caller's account id; another account's ids answer 404 like missing ones.
 * Writes that belong together run in one transaction; index work happens after it commits.
 */
export class Documents implements StoreSearcher {
  readonly files: FileStore;
  readonly stores: VectorStores;
  readonly ingestor: Ingestor;
  readonly queue: IngestionQueue;
  readonly repos: DocumentsRepositories;
  private readonly sweeper: DocumentsSweeper;
  private readonly searching: StoreSearch;
  private readonly db: SqlDatabase;
  private readonly embedder: Embedder;
  private readonly index: VectorIndexContract;
  private readonly log: Logger;

  constructor(options: DocumentsOptions) {
    const { db, config, embedder, vectorIndex, log } = options;
    const settings = config.documents;
    this.db = db;
    this.embedder = embedder;
    this.index = vectorIndex;
    this.log = log;
    this.repos = options.repositories ?? createDocumentsRepositories(db, { dataDir: config.dataDir });
    this.files = new FileStore(db, this.repos, config.dataDir);
    this.stores = new VectorStores(this.repos.stores);
    this.ingestor = new Ingestor({
      embedder,
      vectorIndex,
      extract: { threads: settings.extractThreads, memoryMb: settings.extractMemoryMb, timeoutMs: settings.extractTimeoutMs },
    });
    this.queue = new IngestionQueue({
      repos: this.repos,
      ingestor: this.ingestor,
      vectorIndex,
      removeFromIndex: (storeId, fileId) => this.removeFromIndex(storeId, fileId),
      log,
      concurrency: settings.ingestConcurrency,
      leaseMs: config.leaseSeconds * 1000,
    });
    this.searching = new StoreSearch({
      stores: this.stores,
      repos: this.repos,
      queue: this.queue,
      index: vectorIndex,
      rewriteQuery: options.rewriteQuery ?? (async (query) => lexicalRewrite(query)),
      log,
    });
    this.sweeper = new DocumentsSweeper({
      repos: this.repos,
      intervalMs: settings.sweepSeconds * 1000,
      deleteFile: (accountId, fileId) => this.purgeFile(accountId, fileId),
      removeFromIndex: (storeId, fileId, requestedAt) => this.removeFromIndex(storeId, fileId, requestedAt),
      log,
    });
  }

  /** Starts the ingestion queue (files left `in_progress` by a stop or crash are finished) and the periodic sweep. */
  start(): void {
    this.queue.start();
    this.sweeper.start();
  }

  async close(): Promise<void> {
    await this.sweeper.close();
    await this.queue.close();
    await this.ingestor.close();
  }

  /** Deletes expired files and retries failed index removals now (also done every `FATHOM_DOCUMENTS_SWEEP_SECONDS`). */
  sweep(): Promise<void> {
    return this.sweeper.sweep();
  }

  // ---- files ----

  stageUpload(source: Readable): Promise<StagedUpload> {
    return this.files.stage(source);
  }

  commitUpload(accountId: string, staged: StagedUpload, input: FileInput): Promise<FileObject> {
    return this.files.commit(accountId, staged, input);
  }

  createFile(accountId: string, input: FileInput & { data: Uint8Array }): Promise<FileObject> {
    return this.files.create(accountId, input);
  }

  getFile(accountId: string, fileId: string): Promise<FileObject> {
    return this.files.get(accountId, fileId);
  }

  listFiles(accountId: string, query: ListQuery & { purpose?: string }): Promise<ListPage<FileObject>> {
    return this.files.list(accountId, query);
  }

  /** The file and a stream of its bytes (`GET /v1/files/{id}/content`). */
  openFileContent(accountId: string, fileId: string): Promise<{ file: FileObject; stream: Readable }> {
    return this.files.openContent(accountId, fileId);
  }

  /** Deletes a file, its bytes, and its chunks from every store that holds it (their counts follow). */
  async deleteFile(accountId: string, fileId: string): Promise<{ id: string; object: 'file'; deleted: true }> {
    await this.files.row(accountId, fileId);
    return this.purgeFile(accountId, fileId);
  }

  /** Deletes a file whether or not it expired (the sweep deletes expired ones); 404 when it is gone already. */
  private async purgeFile(accountId: string, fileId: string): Promise<{ id: string; object: 'file'; deleted: true }> {
    const requestedAt = Date.now();
    const stores = await this.db.transaction(async (tx) => {
      const repos = inTransaction(this.repos, tx);
      const holding = await repos.storeFiles.storesOf(fileId);
      for (const storeId of holding) {
        await repos.storeFiles.remove(storeId, fileId);
        await repos.storeFiles.requestRemoval(storeId, fileId, requestedAt);
      }
      if (!(await repos.files.remove(accountId, fileId))) throw new NotFoundError('file', fileId);
      return holding;
    });
    await this.repos.blobs.remove(fileId);
    for (const storeId of stores) {
      this.queue.abort(storeId, fileId);
      await this.removeFromIndex(storeId, fileId, requestedAt);
    }
    return { id: fileId, object: 'file', deleted: true };
  }

  // ---- vector stores ----

  /** Creates a store; `file_ids` (at most 500) are added with `chunking_strategy`. */
  async createStore(accountId: string, params: VectorStoreCreateParams): Promise<VectorStoreObject> {
    const fileIds = params.file_ids ?? [];
    const chunking = resolveChunking(params.chunking_strategy, this.embedder.maxInputTokens);
    for (const id of fileIds) await this.files.row(accountId, id, 'file_ids');
    const row = this.stores.build(accountId, params, this.embedder.id);
    await this.db.transaction(async (tx) => {
      const repos = inTransaction(this.repos, tx);
      await repos.stores.insert(row);
      const files = [...new Set(fileIds)].map((fileId) => ({ fileId, attributes: null, chunking }));
      await this.enqueue(repos, accountId, row.id, files);
    });
    this.queue.wake();
    return this.stores.toObject(row);
  }

  async getStore(accountId: string, storeId: string): Promise<VectorStoreObject> {
    return this.stores.toObject(await this.stores.row(accountId, storeId));
  }

  /** Stores of the account whose id or name is `idOrName`, oldest first (CLI: `fathom ingest --store`, `fathom search`). */
  async findStores(accountId: string, idOrName: string): Promise<VectorStoreObject[]> {
    const rows = await this.repos.stores.findByIdOrName(accountId, idOrName);
    return Promise.all(rows.map((row) => this.stores.toObject(row)));
  }

  /** Ids of the stores of any account whose id or name is `idOrName`, oldest first (operator CLI: `fathom reindex`). */
  storeIdsNamed(idOrName: string): Promise<string[]> {
    return this.repos.stores.idsNamed(idOrName);
  }

  /** Progress of some files of a store: status counts plus chunks indexed so far (CLI progress bar). */
  async progress(storeId: string, fileIds: string[]): Promise<{ done: number; failed: number; chunks: number; total: number }> {
    const out = { done: 0, failed: 0, chunks: 0, total: fileIds.length };
    for (const row of await this.repos.storeFiles.statuses(storeId, fileIds)) {
      if (row.status === 'in_progress') continue;
      out.done++;
      if (row.status !== 'completed') out.failed++;
      out.chunks += Number(row.chunk_count);
    }
    return out;
  }

  listStores(accountId: string, query: ListQuery): Promise<ListPage<VectorStoreObject>> {
    return this.stores.list(accountId, query);
  }

  async updateStore(accountId: string, storeId: string, params: VectorStoreUpdateParams): Promise<VectorStoreObject> {
    return this.stores.toObject(await this.stores.update(accountId, storeId, params));
  }

  async deleteStore(accountId: string, storeId: string): Promise<{ id: string; object: 'vector_store.deleted'; deleted: true }> {
    await this.stores.row(accountId, storeId);
    const running = await this.repos.storeFiles.inProgress(storeId);
    await this.repos.stores.remove(storeId);
    for (const fileId of running) this.queue.abort(storeId, fileId);
    // The store is gone (no search can name it); chunks a failed removal leaves are unreachable garbage.
    await this.index.removeStore(storeId).catch((error: Error) => {
      this.log.error(`could not remove the chunks of deleted vector store ${storeId}: ${error.message}`);
    });
    return { id: storeId, object: 'vector_store.deleted', deleted: true };
  }

  // ---- store files ----

  /** Adds one file to a store; ingestion starts asynchronously. Re-adding re-ingests with the new options. */
  async addStoreFile(accountId: string, storeId: string, body: FileToAdd): Promise<StoreFileObject> {
    await this.stores.row(accountId, storeId);
    const [prepared] = await prepareFiles([body], 'file_id', this.embedder.maxInputTokens, (id, param) =>
      this.files.row(accountId, id, param),
    );
    this.queue.abort(storeId, prepared!.fileId);
    const [row] = await this.db.transaction((tx) => this.enqueue(inTransaction(this.repos, tx), accountId, storeId, [prepared!]));
    this.queue.wake();
    return toStoreFileObject((await this.repos.storeFiles.find(storeId, row!.file_id)) ?? row!);
  }

  async getStoreFile(accountId: string, storeId: string, fileId: string): Promise<StoreFileObject> {
    await this.stores.row(accountId, storeId);
    return toStoreFileObject(await this.storeFileRow(storeId, fileId));
  }

  async listStoreFiles(accountId: string, storeId: string, query: ListQuery & { filter?: unknown }): Promise<ListPage<StoreFileObject>> {
    await this.stores.row(accountId, storeId);
    const page = await this.repos.storeFiles.list(storeId, { ...query, filter: parseStatusFilter(query.filter) });
    return { ...page, data: page.data.map(toStoreFileObject) };
  }

  /** Replaces a store file's attributes (used by search filters, also while the file is still being ingested). */
  async updateStoreFile(accountId: string, storeId: string, fileId: string, body: { attributes?: unknown }): Promise<StoreFileObject> {
    await this.stores.row(accountId, storeId);
    await this.storeFileRow(storeId, fileId);
    if (!('attributes' in body)) throw new InvalidRequestError("Missing required parameter: 'attributes'.", 'attributes');
    const attributes = validateAttributes(body.attributes);
    await this.repos.storeFiles.setAttributes(storeId, fileId, attributes);
    await this.index.setAttributes(storeId, fileId, attributes);
    return toStoreFileObject(await this.storeFileRow(storeId, fileId));
  }

  /** Removes a file from a store (the file itself stays). */
  async deleteStoreFile(
    accountId: string,
    storeId: string,
    fileId: string,
  ): Promise<{ id: string; object: 'vector_store.file.deleted'; deleted: true }> {
    await this.stores.row(accountId, storeId);
    await this.storeFileRow(storeId, fileId);
    const requestedAt = Date.now();
    await this.db.transaction(async (tx) => {
      const repos = inTransaction(this.repos, tx);
      if (!(await repos.storeFiles.remove(storeId, fileId))) throw new NotFoundError('file', fileId);
      await repos.storeFiles.requestRemoval(storeId, fileId, requestedAt);
    });
    this.queue.abort(storeId, fileId);
    await this.removeFromIndex(storeId, fileId, requestedAt);
    return { id: fileId, object: 'vector_store.file.deleted', deleted: true };
  }

  /** The parsed text of a store file, rebuilt from its chunks (`vector_store.file_content.page`; empty until completed). */
  async storeFileContent(accountId: string, storeId: string, fileId: string) {
    await this.stores.row(accountId, storeId);
    await this.storeFileRow(storeId, fileId);
    const chunks = await this.index.fileChunks(storeId, fileId);
    const data = chunks.length ? [{ type: 'text' as const, text: mergeChunks(chunks) }] : [];
    return { object: 'vector_store.file_content.page' as const, data, has_more: false, next_page: null };
  }

  // ---- file batches ----

  /** Adds many files at once: `file_ids` (with shared `attributes`/`chunking_strategy`) or `files[]`, 1..2000. */
  async createBatch(accountId: string, storeId: string, body: Record<string, unknown>): Promise<FileBatchObject> {
    await this.stores.row(accountId, storeId);
    const { entries, param } = readBatchEntries(body);
    const prepared = await prepareFiles(entries, param, this.embedder.maxInputTokens, (id, where) => this.files.row(accountId, id, where));
    for (const file of prepared) this.queue.abort(storeId, file.fileId);
    const batch = { id: newId('vsfb_'), store_id: storeId, account_id: accountId, cancelled: 0, created_at: nowSeconds() };
    await this.db.transaction(async (tx) => {
      const repos = inTransaction(this.repos, tx);
      await repos.batches.insert(
        batch,
        prepared.map((file) => file.fileId),
      );
      await this.enqueue(repos, accountId, storeId, prepared);
    });
    this.queue.wake();
    return toFileBatchObject(batch, await this.repos.storeFiles.batchCounts(storeId, batch.id));
  }

  async getBatch(accountId: string, storeId: string, batchId: string): Promise<FileBatchObject> {
    await this.stores.row(accountId, storeId);
    const batch = await this.batchRow(storeId, batchId);
    return toFileBatchObject(batch, await this.repos.storeFiles.batchCounts(storeId, batchId));
  }

  /** Cancels a batch: its files still `in_progress` end `cancelled` (their partial work is discarded). */
  async cancelBatch(accountId: string, storeId: string, batchId: string): Promise<FileBatchObject> {
    await this.stores.row(accountId, storeId);
    const batch = await this.batchRow(storeId, batchId);
    const requestedAt = Date.now();
    const cancelled = await this.db.transaction(async (tx) => {
      const repos = inTransaction(this.repos, tx);
      await repos.batches.markCancelled(batchId);
      const fileIds = await repos.storeFiles.cancelBatch(batchId, storeId);
      for (const fileId of fileIds) await repos.storeFiles.requestRemoval(storeId, fileId, requestedAt);
      return fileIds;
    });
    for (const fileId of cancelled) this.queue.abort(storeId, fileId);
    for (const fileId of cancelled) await this.removeFromIndex(storeId, fileId, requestedAt);
    return toFileBatchObject({ ...batch, cancelled: 1 }, await this.repos.storeFiles.batchCounts(storeId, batchId));
  }

  async listBatchFiles(
    accountId: string,
    storeId: string,
    batchId: string,
    query: ListQuery & { filter?: unknown },
  ): Promise<ListPage<StoreFileObject>> {
    await this.stores.row(accountId, storeId);
    await this.batchRow(storeId, batchId);
    const page = await this.repos.storeFiles.list(storeId, { ...query, filter: parseStatusFilter(query.filter) }, batchId);
    return { ...page, data: page.data.map(toStoreFileObject) };
  }

  // ---- search (StoreSearcher) ----

  /** Hybrid search over stores of one account. Any store not of this account answers 404. */
  async search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    return (await this.searching.search(accountId, storeIds, options)).data;
  }

  /** Search with what was searched (`POST /v1/vector_stores/{id}/search`), rewriting the query when asked. */
  searchStores(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<StoreSearchResult> {
    return this.searching.search(accountId, storeIds, options);
  }

  /** Resolves true once no file of these stores is `in_progress` (on any process), false after `timeoutMs`. */
  waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean> {
    return this.searching.waitForIngestion(accountId, storeIds, timeoutMs);
  }

  // ---- internals ----

  /**
   * Removes a file's chunks from the index. A failure is logged and the removal stays recorded in
   * `index_removals` (written with the change that asked for it), so the sweep retries it; chunks of a
   * file that left its store never stay searchable for good.
   */
  private async removeFromIndex(storeId: string, fileId: string, requestedAt?: number): Promise<void> {
    try {
      await this.index.removeFile(storeId, fileId);
      if (requestedAt !== undefined) await this.repos.storeFiles.clearRemoval(storeId, fileId, requestedAt);
    } catch (error) {
      this.log.error(
        `could not remove the chunks of ${fileId} from vector store ${storeId}; the removal is retried by the periodic sweep: ${(error as Error).message}`,
      );
      if (requestedAt === undefined) {
        await this.repos.storeFiles.requestRemoval(storeId, fileId, Date.now()).catch((recordError: Error) => {
          this.log.error(`could not record the pending removal of ${fileId} from ${storeId}: ${recordError.message}`);
        });
      }
    }
  }

  /** Queues files in a transaction; a pending index removal of a re-added file is superseded by its new run. */
  private async enqueue(repos: DocumentsRepositories, accountId: string, storeId: string, files: PreparedFile[]) {
    const createdAt = nowSeconds();
    const rows = [];
    for (const file of files) {
      await repos.storeFiles.clearRemoval(storeId, file.fileId);
      rows.push(
        await repos.storeFiles.enqueue({
          accountId,
          storeId,
          fileId: file.fileId,
          attributes: file.attributes,
          chunking: file.chunking,
          runId: newId('ing_'),
          createdAt,
        }),
      );
    }
    return rows;
  }

  private async storeFileRow(storeId: string, fileId: string) {
    const row = await this.repos.storeFiles.find(storeId, fileId);
    if (!row) throw new NotFoundError('file', fileId);
    return row;
  }

  private async batchRow(storeId: string, batchId: string) {
    const row = await this.repos.batches.get(storeId, batchId);
    if (!row) throw new NotFoundError('file batch', batchId);
    return row;
  }
}
