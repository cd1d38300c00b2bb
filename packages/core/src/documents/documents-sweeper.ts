import { NotFoundError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { DocumentsRepositories } from './documents-repositories';

export interface DocumentsSweeperOptions {
  repos: DocumentsRepositories;
  /** How often to sweep; `FATHOM_DOCUMENTS_SWEEP_SECONDS` (default 60 s). */
  intervalMs: number;
  deleteFile(accountId: string, fileId: string): Promise<unknown>;
  removeFromIndex(storeId: string, fileId: string, requestedAt: number): Promise<void>;
  log: Logger;
}

/** Files and removals handled per sweep, so one sweep stays short; the next one continues. */
const BATCH = 100;
/** A removal younger than this (or one sweep interval, if shorter) may still be running inline, right after the change that asked for it. */
const REMOVAL_GRACE_MS = 30_000;

/**
 * Periodic maintenance every process runs (so it happens as long as any node runs): deletes files
 * whose `expires_after` has passed, and retries index removals that failed. Both are idempotent, so
 * nodes sweeping at the same time do no harm: a file another node deleted first answers 404 here.
 */
export class DocumentsSweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private closed = false;

  constructor(private readonly options: DocumentsSweeperOptions) {}

  start(): void {
    if (this.timer || this.closed) return;
    // A random first delay spreads the sweeps of nodes started together.
    const first = Math.floor(Math.random() * Math.min(this.options.intervalMs, 5_000));
    const tick = () => {
      if (this.closed) return;
      void this.sweep().finally(() => {
        if (!this.closed) this.timer = setTimeout(tick, this.options.intervalMs).unref();
      });
    };
    this.timer = setTimeout(tick, first).unref();
  }

  /** One sweep now (or the one already running). Never throws: failures are logged and retried next time. */
  sweep(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    const { repos, log } = this.options;
    try {
      for (const file of await repos.files.expired(nowSeconds(), BATCH)) {
        if (this.closed) return;
        await this.options.deleteFile(file.account_id, file.id).catch((error) => {
          if (!(error instanceof NotFoundError)) log.warn(`could not delete expired file ${file.id}: ${(error as Error).message}`);
        });
      }
      for (const removal of await repos.storeFiles.pendingRemovals(
        Date.now() - Math.min(REMOVAL_GRACE_MS, this.options.intervalMs),
        BATCH,
      )) {
        if (this.closed) return;
        const current = await repos.storeFiles.find(removal.store_id, removal.file_id);
        if (current && (current.status === 'in_progress' || current.status === 'completed')) {
          // Added again since: its current run owns the chunks.
          await repos.storeFiles.clearRemoval(removal.store_id, removal.file_id, removal.requested_at);
        } else {
          await this.options.removeFromIndex(removal.store_id, removal.file_id, removal.requested_at);
        }
      }
    } catch (error) {
      log.warn(`documents sweep failed (retried in ${Math.round(this.options.intervalMs / 1000)} s): ${(error as Error).message}`);
    }
  }
}
