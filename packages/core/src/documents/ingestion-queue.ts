import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Database } from '../db';
import type { Logger } from '../internal/logger';
import type { VectorIndexContract } from '../vector';
import { ExtractionError } from './extract/extraction-error';
import type { FileStore } from './file-store';
import type { Ingestor } from './ingestor';
import type { StoreFileRow, StoreFiles } from './store-files';

export interface IngestionQueueOptions {
  db: Database;
  storeFiles: StoreFiles;
  files: FileStore;
  ingestor: Ingestor;
  vectorIndex: VectorIndexContract;
  log: Logger;
  /** Files ingested at once; default 8 (the CPU-heavy steps run in worker threads, so files in different stages overlap). `FATHOM_INGEST_CONCURRENCY`. */
  concurrency?: number;
  /** A file whose ingestion was interrupted this many times (crashes) ends `failed`; default 3. */
  maxAttempts?: number;
}

const key = (storeId: string, fileId: string) => `${storeId}\u0000${fileId}`;

/** A lease lasts this long and is renewed every third of it while the file runs. */
const LEASE_MS = 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lease owner left by a process of this host that no longer runs (a crash): its files can be taken now. */
function deadOwner(owner: string): boolean {
  const [host, pid] = owner.split('|');
  return host === hostname() && Number(pid) !== process.pid && !processAlive(Number(pid));
}

/**
 * The durable ingestion queue: rows `in_progress` in `vector_store_files`, taken in order with bounded
 * concurrency. After a restart `start()` picks up every row left `in_progress`, so nothing stays stuck.
 * A run only ends its row if the row is still the same generation and `in_progress`; otherwise (deleted,
 * cancelled, re-queued) it removes what it indexed.
 */
export class IngestionQueue {
  /** Emits `settled` (storeId, fileId) whenever a run ends. */
  readonly events = new EventEmitter();
  private readonly options: IngestionQueueOptions;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly filenameOf;
  /** This queue's lease identity: host, pid and a random tag (several Fathoms may share a process). */
  private readonly owner = `${hostname()}|${process.pid}|${randomBytes(4).toString('hex')}`;
  private renewTimer?: NodeJS.Timeout;
  private started = false;
  private closing = false;

  constructor(options: IngestionQueueOptions) {
    this.options = options;
    this.concurrency = Math.max(1, options.concurrency ?? 8);
    this.maxAttempts = options.maxAttempts ?? 3;
    this.events.setMaxListeners(0);
    this.filenameOf = options.db.prepare<[string], { filename: string; bytes: number }>('SELECT filename, bytes FROM files WHERE id = ?');
  }

  start(): void {
    this.started = true;
    this.options.storeFiles.clearDeadLeases(deadOwner);
    this.renewTimer = setInterval(() => {
      if (this.running.size > 0) this.options.storeFiles.renewLeases(this.owner, Date.now() + LEASE_MS);
      this.pump(); // files whose lease expired (a peer process died) are taken up here
    }, LEASE_MS / 3);
    this.renewTimer.unref();
    this.pump();
  }

  /** Starts queued work while slots are free. Cheap; call it after every enqueue. */
  pump(): void {
    if (!this.started || this.closing) return;
    const free = this.concurrency - this.running.size;
    if (free <= 0) return;
    // Rows this queue runs are leased to it, so they come back too: ask for them plus the free slots.
    for (const row of this.options.storeFiles.queued(free + this.running.size, this.owner)) {
      if (this.running.size >= this.concurrency) break;
      const id = key(row.store_id, row.file_id);
      if (this.running.has(id)) continue;
      const attempt = this.options.storeFiles.claim(row, this.owner, Date.now() + LEASE_MS);
      if (attempt === null) continue; // another process runs it
      const controller = new AbortController();
      const entry = { controller, done: Promise.resolve() };
      this.running.set(id, entry);
      entry.done = this.run(row, attempt, controller.signal).finally(() => {
        this.running.delete(id);
        this.events.emit('settled', row.store_id, row.file_id);
        this.pump();
      });
    }
  }

  /** Stops the run of a file (deleted, cancelled); its row has already been changed by the caller. */
  abort(storeId: string, fileId: string): void {
    this.running.get(key(storeId, fileId))?.controller.abort();
  }

  get active(): number {
    return this.running.size;
  }

  /** Whether a file of one of these stores is running in this process (then the store is surely not done). */
  isRunningIn(storeIds: string[]): boolean {
    for (const id of this.running.keys()) if (storeIds.includes(id.slice(0, id.indexOf('\u0000')))) return true;
    return false;
  }

  /** Resolves when nothing is queued or running (CLI, tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || (this.started && this.options.storeFiles.queued(1, this.owner).length > 0)) {
      await new Promise((resolve) => this.events.once('settled', resolve));
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.renewTimer);
    for (const { controller } of this.running.values()) controller.abort();
    await Promise.allSettled([...this.running.values()].map((entry) => entry.done));
  }

  private async run(row: StoreFileRow, attempt: number, signal: AbortSignal): Promise<void> {
    const { storeFiles, files, ingestor, vectorIndex, log } = this.options;
    if (attempt > this.maxAttempts) {
      storeFiles.finish(row, {
        status: 'failed',
        code: 'server_error',
        message: `ingestion was interrupted ${this.maxAttempts} times (the server stopped while processing this file)`,
      });
      return;
    }
    const file = this.filenameOf.get(row.file_id);
    if (!file) {
      storeFiles.finish(row, { status: 'failed', code: 'invalid_file', message: 'file was deleted' });
      return;
    }
    try {
      const result = await ingestor.ingest({
        storeId: row.store_id,
        fileId: row.file_id,
        filename: file.filename,
        path: files.path(row.file_id),
        bytes: file.bytes,
        attributes: row.attributes ? JSON.parse(row.attributes) : null,
        chunking: { max_chunk_size_tokens: row.chunk_max_tokens, chunk_overlap_tokens: row.chunk_overlap_tokens },
        signal,
      });
      if (!storeFiles.finish(row, { status: 'completed', usageBytes: result.usageBytes, chunks: result.chunks })) {
        await this.discard(row);
      }
    } catch (error) {
      if (signal.aborted) {
        if (this.closing) storeFiles.release(row, this.owner, true);
        else await this.discard(row);
        return;
      }
      const known = error instanceof ExtractionError;
      if (!known) log.error(`ingestion of ${row.file_id} into ${row.store_id} failed`, error);
      storeFiles.finish(row, {
        status: 'failed',
        code: known ? error.code : 'server_error',
        message: known ? error.message : `ingestion failed: ${(error as Error).message}`,
      });
      await vectorIndex.removeFile(row.store_id, row.file_id).catch(() => {});
    }
  }

  /** A stale run indexed chunks its row no longer wants. */
  private async discard(row: StoreFileRow): Promise<void> {
    const current = this.options.storeFiles.find(row.store_id, row.file_id);
    if (current && current.generation !== row.generation && current.status === 'in_progress') return; // re-run will replace
    await this.options.vectorIndex.removeFile(row.store_id, row.file_id).catch(() => {});
  }
}
