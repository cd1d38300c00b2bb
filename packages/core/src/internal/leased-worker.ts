import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from './logger';
import { metrics } from '../observability/metrics';
import { detached } from '../observability/request-context';

/** What every kind of background work hands the worker: its id and how many times it was claimed. */
export interface LeasedTask {
  id: string;
  attempts: number;
}

/**
 * The storage side of one kind of background work (ingestion, data-tool jobs, assistant runs, agent
 * runs, background responses). Claims are correct by their own row conditions (`UPDATE … WHERE
 * status = 'queued' OR lease_until < now … RETURNING`), so any number of processes on one database
 * can share a queue without locks, and a task whose process died is taken over once its lease ends.
 */
export interface LeaseQueue<Task extends LeasedTask> {
  /** Claims up to `limit` tasks (queued, or claimed with an expired lease) for `owner` until `leaseUntil`, counting an attempt on each. */
  claim(owner: string, leaseUntil: number, limit: number, now: number): Promise<Task[]>;
  /** Extends the leases `owner` still holds among `ids`; answers the ids it still holds. */
  renew(owner: string, ids: readonly string[], leaseUntil: number): Promise<string[]>;
  /** Gives unfinished tasks back (shutdown): claimable at once, and the attempt does not count. */
  release(owner: string, ids: readonly string[]): Promise<void>;
  /** Owners that hold leases now, so leases of processes known dead can be expired at start. */
  owners?(): Promise<string[]>;
  /** Expires every lease `owner` holds (its process is gone). */
  expire?(owner: string): Promise<void>;
}

/** Why a running task's signal fired. */
export type StopReason = 'shutdown' | 'lease-lost' | 'cancelled';

export class TaskStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`task stopped: ${reason}`);
  }
}

export interface TaskContext {
  /** Fires on shutdown, when the lease was lost to another process, or on `cancel(id)`; `signal.reason` is a `TaskStopped`. */
  signal: AbortSignal;
  /** The lease owner: terminal writes are conditioned on it, so a run that lost its lease cannot overwrite its successor. */
  owner: string;
}

export interface LeasedWorkerOptions<Task extends LeasedTask> {
  /** For logs, e.g. `ingestion`. */
  name: string;
  queue: LeaseQueue<Task>;
  /** Runs one task to a terminal state. A throw is logged; the task is taken again after its lease ends. */
  run(task: Task, context: TaskContext): Promise<void>;
  /** Instead of `run`, for a task claimed more than `maxAttempts` times (its process kept dying): end it failed. */
  exhausted(task: Task, context: TaskContext): Promise<void>;
  /** Tasks run at once by this process; default 4. */
  concurrency?: number;
  /** Lease length; renewed every third of it while the task runs. Default 30 s (`FATHOM_LEASE_SECONDS`). */
  leaseMs?: number;
  /** How often to look for work other processes queued or abandoned; default 1 s. */
  pollMs?: number;
  /** Claims of one task before it is given up; default 3. */
  maxAttempts?: number;
  log: Logger;
}

/** The lease identity of this process: host, pid and a random tag (several Fathoms may share one process). */
export function leaseOwner(): string {
  return `${hostname()}|${process.pid}|${randomBytes(4).toString('hex')}`;
}

/** Whether a lease owner names a process of this host that no longer runs. */
export function isDeadOwner(owner: string): boolean {
  const [host, pid] = owner.split('|');
  if (host !== hostname() || !pid || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/**
 * Runs one kind of background work from a lease queue with bounded concurrency: claims, heartbeats,
 * takes over expired leases, gives tasks back on shutdown, and backs off when the database fails
 * (a full disk must not become a hot loop).
 */
export class LeasedWorker<Task extends LeasedTask> {
  readonly owner = leaseOwner();
  readonly #options: Required<Omit<LeasedWorkerOptions<Task>, 'log'>> & { log: Logger };
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #started = false;
  #closing = false;
  #pumping = false;
  #again = false;
  #failures = 0;
  #retryAt = 0;
  #heartbeat?: NodeJS.Timeout;
  #poll?: NodeJS.Timeout;
  readonly #idleWaiters = new Set<() => void>();
  /** Settles once start-up (expiring dead owners' leases, the first claim) has begun its claim. */
  #ready: Promise<void> = Promise.resolve();

  constructor(options: LeasedWorkerOptions<Task>) {
    this.#options = { concurrency: 4, leaseMs: 30_000, pollMs: 1000, maxAttempts: 3, ...options };
  }

  /** Tasks running in this process now. */
  get active(): number {
    return this.#running.size;
  }

  /** Ids of the tasks running in this process now. */
  runningIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Expires leases of dead processes of this host, then starts heartbeats, polling and a first claim. */
  start(): void {
    if (this.#started || this.#closing) return;
    this.#started = true;
    this.#startHeartbeat();
    this.#poll = setInterval(() => this.wake(), this.#options.pollMs);
    this.#poll.unref();
    this.#ready = this.#expireDeadOwners().finally(() => this.wake());
  }

  /**
   * Runs a task this process claimed itself (a row it inserted or moved already leased to `owner`, e.g. a
   * run created by a request of this process), with `run` or the worker's own run function. It is then
   * heartbeaten, cancellable and given back at shutdown like a claimed task, and counts towards `active`
   * (not towards claims: a process always runs the work its own requests create). Answers false when the
   * worker is closing; the caller then gives the lease back.
   */
  adopt(task: Task, run?: (task: Task, context: TaskContext) => Promise<void>): boolean {
    if (this.#closing || this.#running.has(task.id)) return false;
    this.#startHeartbeat();
    this.#launch(task, run);
    return true;
  }

  /** Looks for work now (call after queueing a task). Cheap when nothing is free. */
  wake(): void {
    if (!this.#started || this.#closing) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    // A request that queued work wakes the worker: the pump runs outside that request and its trace.
    void detached(() => this.#pump());
  }

  /** Stops a task running in this process (user cancel); the run sees `TaskStopped('cancelled')`. */
  cancel(id: string): boolean {
    const entry = this.#running.get(id);
    if (!entry) return false;
    entry.controller.abort(new TaskStopped('cancelled'));
    return true;
  }

  /** Resolves once this process runs nothing (after the current claims), for CLIs and tests. */
  async idle(): Promise<void> {
    await this.#ready;
    while (this.#running.size > 0 || this.#pumping) {
      await new Promise<void>((resolve) => this.#idleWaiters.add(resolve));
    }
  }

  /** Stops claiming, stops running tasks, waits for them, and gives their leases back. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#heartbeat);
    clearInterval(this.#poll);
    const stopped = [...this.#running.entries()];
    for (const [, entry] of stopped) entry.controller.abort(new TaskStopped('shutdown'));
    await Promise.allSettled(stopped.map(([, entry]) => entry.done));
    if (stopped.length) {
      await this.#options.queue
        .release(
          this.owner,
          stopped.map(([id]) => id),
        )
        .catch((error) => this.#options.log.warn(`${this.#options.name}: could not give leases back at shutdown: ${describe(error)}`));
    }
  }

  async #pump(): Promise<void> {
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        if (Date.now() < this.#retryAt) return;
        const free = this.#options.concurrency - this.#running.size;
        if (free <= 0 || this.#closing) return;
        let tasks: Task[];
        try {
          const now = Date.now();
          tasks = await this.#options.queue.claim(this.owner, now + this.#options.leaseMs, free, now);
          this.#failures = 0;
        } catch (error) {
          this.#backOff(error);
          return;
        }
        for (const task of tasks) this.#launch(task);
        if (tasks.length === free) this.#again = true;
      } while (this.#again && !this.#closing);
    } finally {
      this.#pumping = false;
      this.#notifyIdle();
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat) return;
    this.#heartbeat = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.#options.leaseMs / 3)));
    this.#heartbeat.unref();
  }

  #launch(task: Task, run = this.#options.run): void {
    const controller = new AbortController();
    const context: TaskContext = { signal: controller.signal, owner: this.owner };
    const { log, name, maxAttempts } = this.#options;
    // A task claimed again (its attempts count past 1) was taken over from a lease that ran out: its node stopped.
    if (task.attempts > 1) metrics.leasesExpired.inc({ kind: name.replaceAll(' ', '_') });
    const work = task.attempts > maxAttempts ? this.#options.exhausted(task, context) : run(task, context);
    const entry = {
      controller,
      done: work
        .catch((error) => {
          if (!(controller.signal.reason instanceof TaskStopped))
            log.error(`${name}: task ${task.id} failed unexpectedly: ${describe(error)}`);
        })
        .finally(() => {
          this.#running.delete(task.id);
          this.#notifyIdle();
          this.wake();
        }),
    };
    this.#running.set(task.id, entry);
  }

  async #renew(): Promise<void> {
    const ids = [...this.#running.keys()];
    if (ids.length === 0 || this.#closing) return;
    try {
      const held = new Set(await this.#options.queue.renew(this.owner, ids, Date.now() + this.#options.leaseMs));
      for (const id of ids) {
        if (!held.has(id)) this.#running.get(id)?.controller.abort(new TaskStopped('lease-lost'));
      }
    } catch (error) {
      this.#options.log.warn(`${this.#options.name}: lease renewal failed: ${describe(error)}`);
    }
  }

  async #expireDeadOwners(): Promise<void> {
    const { queue } = this.#options;
    if (!queue.owners || !queue.expire) return;
    try {
      for (const owner of await queue.owners()) if (isDeadOwner(owner)) await queue.expire(owner);
    } catch (error) {
      this.#options.log.warn(`${this.#options.name}: could not check leases of stopped processes: ${describe(error)}`);
    }
  }

  /** Database failures (full disk, lost connection) delay the next claim exponentially, up to 30 s. */
  #backOff(error: unknown): void {
    this.#failures++;
    const delay = Math.min(30_000, 100 * 2 ** Math.min(this.#failures, 9));
    this.#retryAt = Date.now() + delay;
    if (this.#failures === 1 || this.#failures % 10 === 0) {
      this.#options.log.warn(`${this.#options.name}: cannot claim work (${describe(error)}); retrying in ${delay} ms`);
    }
  }

  #notifyIdle(): void {
    if (this.#running.size > 0 || this.#pumping) return;
    for (const resolve of this.#idleWaiters) resolve();
    this.#idleWaiters.clear();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
