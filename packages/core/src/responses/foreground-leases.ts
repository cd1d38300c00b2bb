import { LeasedWorker, type TaskContext, TaskStopped } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import type { ResponsesRepository, StoredResponse } from './responses-repository';

/** The `error` of a stored foreground response whose server stopped before it finished. */
export const STOPPED_ERROR = {
  code: 'server_error',
  message: 'The server running this response stopped before it finished; create the response again.',
} as const;

/** What a foreground run holds while it runs: its lease owner (terminal writes are conditioned on it) and its end. */
export interface ForegroundLease {
  owner: string;
  /** Call once the run stored its outcome (or gave up): the lease is no longer renewed. */
  done(): void;
}

/**
 * Leases of stored foreground responses. A foreground response runs in the process whose request made it,
 * but its row is leased like background work: this process renews the lease while the request runs, and
 * a row whose process died (its lease ended, or its process is known gone at start-up) is claimed by any
 * process and ends `failed` with `server_error` — never `in_progress` forever. It is not run again: its
 * client is gone with the connection (see docs/decisions/2026-11-25-crashed-foreground-responses.md).
 */
export class ForegroundLeases {
  readonly #repository: ResponsesRepository;
  readonly #worker: LeasedWorker<StoredResponse>;
  readonly #leaseMs: number;

  constructor(options: { repository: ResponsesRepository; log: Logger; leaseMs?: number; onEnded(id: string): void }) {
    this.#repository = options.repository;
    this.#leaseMs = options.leaseMs ?? 30_000;
    const end = async (task: StoredResponse, context: TaskContext) => {
      await this.#fail(task.id, task.body, context.owner);
      options.onEnded(task.id);
    };
    this.#worker = new LeasedWorker<StoredResponse>({
      name: 'foreground responses',
      queue: options.repository.foregroundQueue(),
      run: end,
      exhausted: end,
      // Rows of stopped processes ended per claim; the responses this process runs are not counted against it.
      concurrency: 256,
      leaseMs: this.#leaseMs,
      log: options.log,
    });
  }

  /** The lease a new row is inserted with: held by this process until `now + leaseMs`. */
  newLease(): { owner: string; until: number } {
    return { owner: this.#worker.owner, until: Date.now() + this.#leaseMs };
  }

  /**
   * Holds the lease of a row inserted with `newLease()` while its run goes on. When this process stops or
   * loses the lease, `stop` is aborted (with a `TaskStopped`) and the row ends `failed`.
   */
  hold(task: StoredResponse, stop: AbortController): ForegroundLease {
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const adopted = this.#worker.adopt(task, async (_task, context) => {
      const stopped = new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([finished, stopped]);
      if (!context.signal.aborted) return;
      stop.abort(context.signal.reason);
      if ((context.signal.reason as TaskStopped).reason !== 'cancelled') await this.#fail(task.id, task.body, context.owner);
    });
    if (!adopted) stop.abort(new TaskStopped('shutdown'));
    return { owner: this.#worker.owner, done };
  }

  /** Ends rows of processes that stopped (at start-up, then as their leases end). */
  start(): void {
    this.#worker.start();
  }

  close(): Promise<void> {
    return this.#worker.close();
  }

  async #fail(id: string, body: StoredResponse['body'], owner: string): Promise<void> {
    await this.#repository.update(id, 'failed', { ...body, status: 'failed', error: { ...STOPPED_ERROR } }, owner);
  }
}
