import type { Accounts } from '../accounts';
import type { JobSettings } from '../config';
import { FathomError, UpstreamError } from '../errors';
import { LeasedWorker, TaskStopped, type TaskContext } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import type { JobRow, JobsRepository } from './job-store';
import type { ConfiguredSources } from './sources/create-tool-sources';
import type { ToolOutput } from './types';
import { metrics } from '../observability/metrics';
import { withRequestId } from '../observability/request-context';
import { contextOfTraceparent, inSpan } from '../observability/tracing';

export interface JobRunnerOptions {
  db: SqlClient;
  accounts: Accounts;
  jobs: JobsRepository;
  sources: ConfiguredSources;
  settings: JobSettings;
  leaseMs: number;
  log: Logger;
  /** The time, in ms, that decides whether a cached result is still fresh. */
  now: () => number;
}

/** Marks an error a job ends with; `code` and `message` are shown to the client. */
class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type ToolResult = { items: unknown[]; [key: string]: unknown };

/**
 * Runs data-tool jobs from the durable queue (leases: any number of processes on one database share it)
 * with bounded concurrency and a per-job timeout, bills the actual cost exactly once, and answers
 * identical inputs from the result cache or from the identical job already calling the provider, on
 * whichever process that runs. Internal: `fathom.jobs` queues the jobs, `Fathom` starts and closes this.
 */
export class JobRunner {
  readonly settings: JobSettings;
  readonly #db: SqlClient;
  readonly #accounts: Accounts;
  readonly #log: Logger;
  readonly #jobs: JobsRepository;
  readonly #sources: ConfiguredSources;
  readonly #worker: LeasedWorker<JobRow>;
  readonly #now: () => number;

  constructor(options: JobRunnerOptions) {
    this.#now = options.now;
    this.#db = options.db;
    this.#accounts = options.accounts;
    this.#log = options.log;
    this.#jobs = options.jobs;
    this.#sources = options.sources;
    this.settings = options.settings;
    this.#worker = new LeasedWorker<JobRow>({
      name: 'jobs',
      queue: this.#jobs.queue(),
      // Each job is the work of the request that started it: its request id in log lines, its trace continued.
      run: (row, context) =>
        withRequestId(row.request_id, () =>
          inSpan(
            'fathom.job',
            {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': row.tool,
              'fathom.job_id': row.id,
              'fathom.attempt': row.attempts,
            },
            () => this.#run(row, context),
            contextOfTraceparent(row.traceparent),
          ),
        ),
      exhausted: (row, context) =>
        this.#finishFailed(
          row,
          context.owner,
          new JobFailure(
            'job_interrupted',
            `The job was interrupted ${row.attempts - 1} time(s) by a stopped server and was not retried again; nothing was charged.`,
          ),
        ),
      concurrency: this.settings.concurrency,
      maxAttempts: this.settings.maxAttempts,
      pollMs: this.settings.sweepMs,
      leaseMs: options.leaseMs,
      log: options.log,
    });
  }

  /** Looks for queued jobs now (a job was just queued). */
  wake(): void {
    this.#worker.wake();
  }

  /** Resolves once this process runs no job (after its current claims): tests, embedding apps. */
  idle(): Promise<void> {
    return this.#worker.idle();
  }

  /**
   * Starts claiming jobs: queued ones, and running ones whose process stopped renewing its lease (a
   * crash: that counts as an attempt; past `maxAttempts` the job fails and nothing is charged).
   */
  start(): void {
    this.#worker.start();
  }

  /**
   * Stops claiming, aborts running jobs and gives them back to the queue (a shutdown does not count as an
   * attempt) and waits for them. Call before closing the database.
   */
  close(): Promise<void> {
    return this.#worker.close();
  }

  async #run(row: JobRow, context: TaskContext): Promise<void> {
    const ttlMs = this.settings.cacheTtlSeconds * 1000;
    const cached = ttlMs > 0 ? await this.#jobs.findCached(row.cache_key, this.#now() - ttlMs) : undefined;
    if (cached !== undefined) {
      await this.#finishSucceeded(row, context.owner, cached as ToolResult, 0, true);
      return;
    }
    const leader = await this.#jobs.follow(row);
    if (leader) {
      await this.#follow(row, leader, context);
      return;
    }
    const source = this.#sources.sources.get(row.tool);
    if (!source) {
      await this.#finishFailed(
        row,
        context.owner,
        new JobFailure('tool_unavailable', `The tool '${row.tool}' is no longer configured. ${this.#sources.howToConfigure(row.tool)}`),
      );
      return;
    }
    const controller = new AbortController();
    const stop = () => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', stop, { once: true });
    const timer = setTimeout(
      () =>
        controller.abort(
          new JobFailure('timeout', `The job exceeded its time limit of ${this.settings.jobTimeoutMs} ms; nothing was charged.`),
        ),
      this.settings.jobTimeoutMs,
    );
    try {
      const input = JSON.parse(row.input) as Record<string, unknown>;
      const call = source.run({
        tool: row.tool,
        input,
        ceiling: row.ceiling_micros / 1_000_000,
        signal: controller.signal,
        accountId: row.account_id,
      });
      const output = await Promise.race([call, abortPromise(controller.signal)]);
      await this.#finishSucceeded(row, context.owner, toResult(output), output.cost, false);
    } catch (error) {
      // Shutdown or a lost lease: another run finishes the job; this one writes nothing.
      if (controller.signal.reason instanceof TaskStopped) throw controller.signal.reason;
      await this.#finishFailed(row, context.owner, error);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener('abort', stop);
    }
  }

  /** Waits for the identical job already calling the provider (on any process) and ends the same way, at no cost. */
  async #follow(row: JobRow, leaderId: string, context: TaskContext): Promise<void> {
    const deadline = Date.now() + this.settings.jobTimeoutMs;
    for (;;) {
      if (context.signal.aborted) throw context.signal.reason;
      const leader = await this.#jobs.get(leaderId);
      if (!leader) {
        await this.#finishFailed(
          row,
          context.owner,
          new JobFailure('provider_error', 'The identical job this job waited for was deleted.'),
        );
        return;
      }
      if (leader.status === 'succeeded') {
        await this.#finishSucceeded(row, context.owner, JSON.parse(leader.result ?? '{"items":[]}') as ToolResult, 0, true);
        return;
      }
      if (leader.status === 'failed') {
        await this.#finishFailed(
          row,
          context.owner,
          new JobFailure(leader.error_code ?? 'provider_error', leader.error_message ?? 'The job failed.'),
        );
        return;
      }
      if (Date.now() > deadline) {
        await this.#finishFailed(
          row,
          context.owner,
          new JobFailure('timeout', `The job exceeded its time limit of ${this.settings.jobTimeoutMs} ms; nothing was charged.`),
        );
        return;
      }
      await delay(Math.min(200, this.settings.sweepMs), context.signal);
    }
  }

  /** Writes the success and bills `cost` (capped at the ceiling, the rest released) in one transaction. */
  async #finishSucceeded(row: JobRow, owner: string, result: ToolResult, rawCost: number, cached: boolean): Promise<void> {
    const ceiling = row.ceiling_micros / 1_000_000;
    const cost = Math.min(Math.max(0, Number(rawCost) || 0), ceiling);
    await this.#db.transaction(async (tx) => {
      if (!(await this.#jobs.in(tx).succeed(row.id, owner, cost, cached, result))) return;
      await this.#accounts.in(tx).settle(row.account_id, row.id, cost, `tool ${row.tool}: ${cached ? 'served from cache' : 'actual cost'}`);
    });
    metrics.toolJobs.inc({ tool: row.tool, status: 'succeeded' });
    this.#log.info(`jobs: ${row.id} (${row.tool}) succeeded`, { cost, cached });
  }

  async #finishFailed(row: JobRow, owner: string, error: unknown): Promise<void> {
    const failure = toFailure(error);
    if (failure.code !== 'timeout') this.#log.warn(`jobs: ${row.id} (${row.tool}) failed: ${failure.message}`);
    await this.#db.transaction(async (tx) => {
      if (!(await this.#jobs.in(tx).fail(row.id, owner, failure.code, failure.message))) return;
      await this.#accounts.in(tx).release(row.account_id, row.id, `tool ${row.tool}: failed, nothing charged`);
    });
    metrics.toolJobs.inc({ tool: row.tool, status: 'failed' });
  }
}

function toResult(output: ToolOutput): ToolResult {
  return { ...(output.details ?? {}), items: output.items };
}

function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function toFailure(error: unknown): { code: string; message: string } {
  if (error instanceof JobFailure) return { code: error.code, message: error.message };
  // A data source that failed: rate limited, timed out, or any other answer it could not give.
  if (error instanceof UpstreamError && error.code !== 'tool_unavailable') {
    const code = error.status === 429 ? 'rate_limit_exceeded' : error.status === 504 ? 'timeout' : 'provider_error';
    return { code, message: error.message };
  }
  if (error instanceof FathomError) return { code: error.code, message: error.message };
  const code = (error as { code?: unknown })?.code;
  return {
    code: typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'provider_error',
    message: error instanceof Error ? error.message : String(error),
  };
}
