import { LeasedWorker, type TaskContext } from '../internal/leased-worker';
import { RUN_WITHOUT_KEY, type RunAsOrigin } from '../spend';
import type { RunDeps } from './run-context';
import { cancelRunNow, failRun, RunInterrupted } from './run-lifecycle';
import { executeRun } from './run-loop';
import type { RunLease, RunTask } from './runs-repository';

export interface RunWorkerOptions {
  /** Lease length of an executing run, ms; renewed every third of it. */
  leaseMs: number;
  /** How often to look for runs whose process stopped, ms. */
  pollMs: number;
  /** Claims of one run (since it last started) before it ends `failed`. */
  maxAttempts: number;
  /** Runs taken over from other processes at once (runs this process starts itself are not counted). */
  concurrency: number;
  /** Runs a run charged to the key that created it (its budget, allow-list and tpm_limit); default: no key. */
  runAsOrigin?: RunAsOrigin;
}

/**
 * Executes assistant runs as leased background work. A run created (or resumed with tool outputs) by a
 * request of this process is leased to it at once and executed here, so its stream is served by the
 * process executing it. A run whose process stopped is claimed by any process once its lease ends and
 * goes on from its last recorded step; one claimed more than `maxAttempts` times ends `failed`.
 */
export class RunWorker {
  readonly #deps: RunDeps;
  readonly #worker: LeasedWorker<RunTask>;
  readonly #leaseMs: number;
  readonly #runAsOrigin: RunAsOrigin;

  constructor(deps: RunDeps, options: RunWorkerOptions) {
    this.#deps = deps;
    this.#leaseMs = options.leaseMs;
    this.#runAsOrigin = options.runAsOrigin ?? RUN_WITHOUT_KEY;
    this.#worker = new LeasedWorker<RunTask>({
      name: 'assistant runs',
      queue: deps.runs.queue(),
      run: (task, context) => this.#asOrigin(task.id, () => executeRun(deps, task.id, context, { takeover: true })),
      exhausted: (task, context) => giveUp(deps, task, context),
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
      pollMs: options.pollMs,
      maxAttempts: options.maxAttempts,
      log: deps.log,
    });
  }

  /** A lease on a run this process starts now. */
  lease(): RunLease {
    return { owner: this.#worker.owner, until: Date.now() + this.#leaseMs };
  }

  /** Executes a run this process just leased (`lease()`); when closing, gives the lease back for another process. */
  execute(runId: string): void {
    // Adopted synchronously inside the request that created (or resumed) the run: its calls are charged in
    // that request's context (its key, its request id), as the request's own calls are.
    const adopted = this.#worker.adopt({ id: runId, attempts: 1 }, (task, context) =>
      executeRun(this.#deps, task.id, context, { takeover: false }),
    );
    if (!adopted) {
      void this.#deps.runs
        .queue()
        .release(this.#worker.owner, [runId])
        .catch((error: Error) => this.#deps.log.warn(`assistant runs: could not give run ${runId} back: ${error.message}`));
    }
  }

  /** Aborts a run executing in this process (its executor then ends it `cancelled`); false when it runs elsewhere. */
  cancel(runId: string): boolean {
    return this.#worker.cancel(runId);
  }

  /** Runs `fn` (a run taken over outside any request) charged to the key that created the run. */
  async #asOrigin(runId: string, fn: () => Promise<void>): Promise<void> {
    const stored = await this.#deps.runs.byId(runId);
    if (!stored) return fn();
    return this.#runAsOrigin({ accountId: stored.accountId, keyId: stored.keyId ?? null, api: 'assistants' }, fn);
  }

  /** Starts taking over runs whose process stopped. */
  start(): void {
    this.#worker.start();
  }

  /** Stops the runs executing here without writing anything and gives their leases back. */
  close(): Promise<void> {
    return this.#worker.close();
  }
}

/** A run claimed more than `maxAttempts` times: its process kept stopping, so it ends failed (or cancelled, if asked). */
async function giveUp(deps: RunDeps, task: RunTask, worker: TaskContext): Promise<void> {
  const stored = await deps.runs.byId(task.id);
  if (!stored || stored.leaseOwner !== worker.owner) return;
  const context = { deps, accountId: stored.accountId, run: stored.run, state: stored.state, owner: worker.owner };
  try {
    if (stored.run.status === 'cancelling') await cancelRunNow(context);
    else
      await failRun(context, {
        code: 'server_error',
        message: `The run was interrupted ${task.attempts - 1} times (the server executing it stopped each time) and was not resumed again. Create a new run to try again.`,
      });
  } catch (error) {
    if (!(error instanceof RunInterrupted)) throw error;
  }
}
