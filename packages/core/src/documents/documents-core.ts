import type { FathomConfig } from '../config';
import type { Embedder } from '../embeddings';
import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { SqlDatabase } from '../storage';
import type { VectorIndexContract } from '../vector';
import { createDocumentsRepositories, type DocumentsRepositories, inTransaction } from './documents-repositories';
import { DocumentsSweeper } from './documents-sweeper';
import type { FileRow } from './files-repository';
import type { PreparedFile } from './files-to-add';
import { IngestionQueue } from './ingestion-queue';
import { Ingestor } from './ingestor';
import type { StoreFileRow } from './store-files-repository';
import type { StoreRow } from './vector-stores-repository';

export interface DocumentsCoreOptions {
  db: SqlDatabase;
  config: FathomConfig;
  embedder: Embedder;
  vectorIndex: VectorIndexContract;
  log: Logger;
  /** Storage; default SQL over `db` (file bytes on disk for SQLite, in the database for PostgreSQL). */
  repositories?: DocumentsRepositories;
}

/**
 * What the documents sub-resources (`Files`, `VectorStores`, `VectorStoreFiles`,
 * `VectorStoreFileBatches`) and the search share, and none of them is on its own: the storage, the
 * durable ingestion queue and its ingestor, the periodic sweep, ownership lookups (another account's
 * id answers 404 like a missing one), and the removal of a file's chunks from the index. Internal: an
 * app reaches documents through `fathom.files` and `fathom.vectorStores`.
 */
export class DocumentsCore {
  readonly db: SqlDatabase;
  readonly repos: DocumentsRepositories;
  readonly embedder: Embedder;
  readonly index: VectorIndexContract;
  readonly log: Logger;
  readonly dataDir: string;
  readonly ingestor: Ingestor;
  readonly queue: IngestionQueue;
  private readonly sweeper: DocumentsSweeper;

  constructor(options: DocumentsCoreOptions) {
    const { db, config, embedder, vectorIndex, log } = options;
    const settings = config.documents;
    this.db = db;
    this.embedder = embedder;
    this.index = vectorIndex;
    this.log = log;
    this.dataDir = config.dataDir;
    this.repos = options.repositories ?? createDocumentsRepositories(db, { dataDir: config.dataDir });
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

  // ---- ownership ----

  /** The store of this account, or 404 naming `param` (also for another account's id). */
  async storeRow(accountId: string, storeId: string, param: string | null = null): Promise<StoreRow> {
    const row = await this.repos.stores.get(accountId, storeId);
    if (!row) throw new NotFoundError('vector store', storeId, param);
    return row;
  }

  isExpired(row: StoreRow): boolean {
    return row.expires_after_days !== null && nowSeconds() > row.last_active_at + row.expires_after_days * 86_400;
  }

  /** The file of this account, or 404 naming `param` (also for another account's id and an expired file). */
  async fileRow(accountId: string, fileId: string, param: string | null = null): Promise<FileRow> {
    const row = await this.repos.files.get(accountId, fileId);
    if (!row || (row.expires_at !== null && row.expires_at <= nowSeconds())) throw new NotFoundError('file', fileId, param);
    return row;
  }

  /** A file's row in a store whose ownership was checked, or 404. */
  async storeFileRow(storeId: string, fileId: string): Promise<StoreFileRow> {
    const row = await this.repos.storeFiles.find(storeId, fileId);
    if (!row) throw new NotFoundError('file', fileId);
    return row;
  }

  // ---- ingestion and removal ----

  /** Queues files in a transaction; a pending index removal of a re-added file is superseded by its new run. */
  async enqueue(repos: DocumentsRepositories, accountId: string, storeId: string, files: PreparedFile[]): Promise<StoreFileRow[]> {
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

  /**
   * Resolves true once `done()` holds, false after `timeoutMs`. Checked again whenever a run of this
   * process ends, and every 250 ms (runs of other processes).
   */
  async waitUntil(done: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.queue.events.off('settled', wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 250));
        this.queue.events.on('settled', wake);
      });
    }
    return true;
  }

  /**
   * Removes a file's chunks from the index. A failure is logged and the removal stays recorded in
   * `index_removals` (written with the change that asked for it), so the sweep retries it; chunks of a
   * file that left its store never stay searchable for good.
   */
  async removeFromIndex(storeId: string, fileId: string, requestedAt?: number): Promise<void> {
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

  /**
   * Deletes a file, its bytes and its chunks from every store that holds it (their counts follow),
   * whether or not it expired (the sweep deletes expired ones); 404 when it is gone already.
   */
  async purgeFile(accountId: string, fileId: string): Promise<void> {
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
  }
}
