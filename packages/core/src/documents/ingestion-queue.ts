import { EventEmitter } from 'node:events';
import { LeasedWorker, TaskStopped, type TaskContext } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import { isStorageFull } from '../storage';
import type { VectorIndexContract } from '../vector';
import type { DocumentsRepositories } from './documents-repositories';
import { ExtractionError } from './extract/extraction-error';
import type { Ingestor } from './ingestor';
import type { IngestOutcome, IngestTask, StoreFileRow } from './store-files-repository';
import { metrics } from '../observability/metrics';
import { withRequestId } from '../observability/request-context';
import { contextOfTraceparent, inSpan } from '../observability/tracing';

export interface IngestionQueueOptions {
  repos: DocumentsRepositories;
  ingestor: Ingestor;
  vectorIndex: VectorIndexContract;
  /** Removes a file's chunks from the index, retried later when it fails (see `Documents`). */
  removeFromIndex(storeId: string, fileId: string): Promise<void>;
  log: Logger;
  /** Files ingested at once by this process; default 8 (`FATHOM_INGEST_CONCURRENCY`). */
  concurrency?: number;
  /** Lease length in ms; default 30 s (`FATHOM_LEASE_SECONDS`). */
  leaseMs?: number;
  /** How often to look for files other processes queued or abandoned; default 1 s. */
  pollMs?: number;
  /** A file claimed this many times (its process kept dying) ends `failed`; default 3. */
  maxAttempts?: number;
}

const key = (storeId: string, fileId: string) => `${storeId}\u0000${fileId}`;

/**
 * The durable ingestion queue: rows `in_progress` in `vector_store_files`, run by a `LeasedWorker`
 * (claims with a lease, heartbeats, takeover after a crash, give-back on shutdown, back-off while the
 * database fails), so any number of processes on one database share it. A run ends its row only while
 * it holds the lease and the row is the generation it was given; a run that finds its row deleted,
 * cancelled or failed meanwhile removes what it indexed.
 */
export class IngestionQueue {
  /** Emits `settled` (storeId, fileId) whenever a run of this process ends. */
  readonly events = new EventEmitter();
  private readonly worker: LeasedWorker<IngestTask>;
  /** Run id of each file running in this process, by store and file. */
  private readonly running = new Map<string, string>();

  constructor(private readonly options: IngestionQueueOptions) {
    // One listener per waiting caller (`Documents.waitForIngestion`), each removed when it wakes.
    this.events.setMaxListeners(0);
    this.worker = new LeasedWorker<IngestTask>({
      name: 'ingestion',
      queue: options.repos.storeFiles.queue(),
      // Each file's ingestion is the work of the request that queued it: its request id in log lines, its trace continued.
      run: (task, context) =>
        withRequestId(task.row.request_id, () =>
          inSpan(
            'fathom.ingest',
            {
              'fathom.vector_store_id': task.row.store_id,
              'fathom.file_id': task.row.file_id,
              'fathom.attempt': task.attempts,
            },
            () => this.track(task, () => this.run(task.row, context)),
            contextOfTraceparent(task.row.traceparent),
          ),
        ),
      exhausted: (task, context) =>
        this.track(task, () =>
          this.end(task.row, context.owner, {
            status: 'failed',
            code: 'server_error',
            message: `ingestion was interrupted ${task.attempts - 1} times (the server stopped while processing this file)`,
          }),
        ),
      concurrency: Math.max(1, options.concurrency ?? 8),
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1000,
      maxAttempts: options.maxAttempts ?? 3,
      log: options.log,
    });
  }

  /** Starts claiming: queued files, and files whose process stopped renewing its lease. */
  start(): void {
    this.worker.start();
  }

  /** Looks for work now (after an enqueue). */
  wake(): void {
    this.worker.wake();
  }

  /** Stops this process's run of a file (deleted, cancelled, re-added); its row was already changed. */
  abort(storeId: string, fileId: string): void {
    const runId = this.running.get(key(storeId, fileId));
    if (runId) this.worker.cancel(runId);
  }

  get active(): number {
    return this.worker.active;
  }

  /** Whether a file of one of these stores is running in this process (then the store is surely not done). */
  isRunningIn(storeIds: readonly string[]): boolean {
    for (const id of this.running.keys()) if (storeIds.includes(id.slice(0, id.indexOf('\u0000')))) return true;
    return false;
  }

  /** Resolves once this process runs nothing. */
  idle(): Promise<void> {
    return this.worker.idle();
  }

  /** Stops claiming, stops the runs of this process and gives their files back to the queue. */
  close(): Promise<void> {
    return this.worker.close();
  }

  private async track(task: IngestTask, work: () => Promise<void>): Promise<void> {
    const k = key(task.row.store_id, task.row.file_id);
    this.running.set(k, task.id);
    try {
      await work();
    } finally {
      if (this.running.get(k) === task.id) this.running.delete(k);
      this.events.emit('settled', task.row.store_id, task.row.file_id);
    }
  }

  private async run(row: StoreFileRow, context: TaskContext): Promise<void> {
    const { repos, ingestor } = this.options;
    const file = await repos.files.byId(row.file_id);
    if (!file) {
      await this.end(row, context.owner, { status: 'failed', code: 'invalid_file', message: 'file was deleted' });
      return;
    }
    let outcome: IngestOutcome;
    try {
      const attributes = row.attributes ? JSON.parse(row.attributes) : null;
      const result = await repos.blobs.withLocalPath(file.id, (path) =>
        ingestor.ingest({
          accountId: file.account_id,
          storeId: row.store_id,
          fileId: row.file_id,
          filename: file.filename,
          path,
          bytes: file.bytes,
          attributes,
          chunking: { max_chunk_size_tokens: row.chunk_max_tokens, chunk_overlap_tokens: row.chunk_overlap_tokens },
          signal: context.signal,
          fence: repos.storeFiles.leaseFence(row, context.owner),
        }),
      );
      outcome = { status: 'completed', usageBytes: result.usageBytes, chunks: result.chunks };
    } catch (error) {
      if (context.signal.aborted) {
        const reason = context.signal.reason;
        // At shutdown the worker gives the file back; otherwise the row changed under the run.
        if (!(reason instanceof TaskStopped) || reason.reason !== 'shutdown') await this.discard(row);
        return;
      }
      outcome = this.failure(row, error);
    }
    await this.end(row, context.owner, outcome);
  }

  /** Counts and logs the outcome of a file's ingestion (one line per file, with its chunk count or error code). */
  private observe(row: StoreFileRow, outcome: IngestOutcome): void {
    if (outcome.status === 'completed') {
      metrics.ingestedChunks.inc(outcome.chunks);
      this.options.log.info(`ingestion of ${row.file_id} into ${row.store_id} completed`, { chunks: outcome.chunks });
    } else if (outcome.status === 'failed') {
      metrics.ingestionFailures.inc({ code: outcome.code });
      this.options.log.info(`ingestion of ${row.file_id} into ${row.store_id} failed`, { code: outcome.code });
    }
  }

  /** What a failed run records: the document's own problem, a full disk, or an unexpected error (logged). */
  private failure(row: StoreFileRow, error: unknown): IngestOutcome {
    if (error instanceof ExtractionError) return { status: 'failed', code: error.code, message: error.message };
    if (isStorageFull(error)) {
      this.options.log.warn(`ingestion of ${row.file_id} into ${row.store_id} failed: the disk or database is full`);
      return {
        status: 'failed',
        code: 'server_error',
        message: 'the server ran out of storage space while indexing this file; add it again once space is free',
      };
    }
    this.options.log.error(`ingestion of ${row.file_id} into ${row.store_id} failed`, error);
    return { status: 'failed', code: 'server_error', message: `ingestion failed: ${(error as Error).message}` };
  }

  /**
   * Writes the run's outcome. A failed file's partial chunks are removed. When the row is no longer
   * this run's (deleted, cancelled, re-queued, taken over), what the run indexed is discarded instead.
   * A write that fails (a full disk) throws: the lease then runs out and the file is tried again later.
   */
  private async end(row: StoreFileRow, owner: string, outcome: IngestOutcome): Promise<void> {
    const ended = await this.options.repos.storeFiles.finish(row, owner, outcome);
    if (ended) this.observe(row, outcome);
    if (!ended) await this.discard(row);
    else if (outcome.status === 'failed') await this.options.removeFromIndex(row.store_id, row.file_id);
    else if (ended.attributes !== row.attributes) {
      // Attributes changed while the file ran: the change may have found no chunks yet, so they are set now.
      await this.options.vectorIndex.setAttributes(row.store_id, row.file_id, ended.attributes ? JSON.parse(ended.attributes) : null);
    }
  }

  /**
   * A run whose row changed: its chunks must go when the file left the store, was cancelled or failed.
   * A re-queued or taken-over file keeps them: the current run replaces the file's chunks as a whole.
   */
  private async discard(row: StoreFileRow): Promise<void> {
    const current = await this.options.repos.storeFiles.find(row.store_id, row.file_id);
    if (!current || current.status === 'cancelled' || current.status === 'failed') {
      await this.options.removeFromIndex(row.store_id, row.file_id);
    }
  }
}
