import type { Accounts } from '../accounts';
import type { FathomConfig, JobSettings } from '../config';
import type { EgressGuardContract } from '../egress/types';
import { FathomError, NotFoundError, ServiceUnavailableError, UpstreamError } from '../errors';
import { newId } from '../internal/ids';
import { LeasedWorker, TaskStopped, type TaskContext } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { ChatAdapterContract } from '../models/types';
import type { SqlClient } from '../storage';
import { findTool, TOOL_CATALOG, type ToolDefinition } from './catalog';
import { type JobRow, type JobsRepository, SqlJobsRepository, type ToolJob, toToolJob } from './job-store';
import { enforcePolicy } from './policy';
import { createToolSources, type ConfiguredSources } from './sources/create-tool-sources';
import type { ToolOutput, ToolSource } from './types';
import { cacheKey, validateToolInput } from './validate-input';

export interface JobEngineOptions {
  db: SqlClient;
  config: FathomConfig;
  accounts: Accounts;
  /** Model calls of `nl-data` (the ChatAdapter); without one, nl-data is unavailable. */
  chat?: ChatAdapterContract;
  /**
   * The egress guard: every user-chosen URL (website crawls, nl-data pages, Mastodon instances) goes through it.
   * Without one, the tools that need it (website-contacts, social-profile, nl-data) are unavailable.
   */
  egress?: EgressGuardContract;
  log: Logger;
  /** Sources that win over configuration, by tool name (tests, embedding apps). */
  sources?: Partial<Record<string, ToolSource>>;
  /** Settings that win over `FATHOM_TOOLS_*` variables. */
  settings?: Partial<JobSettings>;
  /** Storage of the jobs; default SQL over `db`. */
  repository?: JobsRepository;
  /** The time, in ms, that decides whether a cached result is still fresh; default `Date.now` (tests move it). */
  now?: () => number;
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
 * Data-tool jobs: validates and prices a start, holds the ceiling and queues the job in one
 * transaction, runs jobs from the durable queue (leases: any number of processes on one database share
 * it) with bounded concurrency and a per-job timeout, bills the actual cost exactly once, and answers
 * identical inputs from the result cache or from the identical job already calling the provider, on
 * whichever process that runs.
 */
export class JobEngine {
  readonly settings: JobSettings;
  readonly #db: SqlClient;
  readonly #accounts: Accounts;
  readonly #log: Logger;
  readonly #jobs: JobsRepository;
  readonly #sources: ConfiguredSources;
  readonly #worker: LeasedWorker<JobRow>;
  readonly #now: () => number;

  constructor(options: JobEngineOptions) {
    this.#now = options.now ?? Date.now;
    this.#db = options.db;
    this.#accounts = options.accounts;
    this.#log = options.log;
    this.#jobs = options.repository ?? new SqlJobsRepository(options.db);
    this.settings = { ...options.config.tools, ...options.settings };
    this.#sources = createToolSources({ env: options.config.env, egress: options.egress, chat: options.chat, overrides: options.sources });
    this.#worker = new LeasedWorker<JobRow>({
      name: 'jobs',
      queue: this.#jobs.queue(),
      run: (row, context) => this.#run(row, context),
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
      leaseMs: options.config.leaseSeconds * 1000,
      log: options.log,
    });
  }

  /** The catalog of `GET /v1/tools`, each entry with `available` and, when unavailable, how to configure it. */
  catalog(): Array<ToolDefinition & { available: boolean }> {
    return TOOL_CATALOG.map((definition) => ({ ...definition, available: this.#sources.sources.has(definition.name) }));
  }

  /** One tool's catalog entry; 404 for an unknown tool. */
  catalogEntry(tool: string): ToolDefinition & { available: boolean } {
    const definition = findTool(tool);
    if (!definition) throw new NotFoundError('tool', tool, 'tool');
    return { ...definition, available: this.#sources.sources.has(definition.name) };
  }

  /**
   * Starts a job: 404 unknown tool, 400 invalid input or policy refusal, 503 `tool_unavailable`,
   * 402 `insufficient_balance` (no job created). Answers the queued job at once; the work runs later.
   */
  async startJob(accountId: string, tool: string, body: unknown): Promise<ToolJob> {
    const definition = findTool(tool);
    if (!definition) throw new NotFoundError('tool', tool, 'tool');
    const input = validateToolInput(definition, body);
    enforcePolicy(tool, input);
    if (!this.#sources.sources.has(tool)) {
      throw new ServiceUnavailableError(
        `The tool '${tool}' is not configured on this installation. ${this.#sources.howToConfigure(tool)}`,
        'tool_unavailable',
      );
    }
    const id = newId('job_');
    const key = cacheKey(tool, input);
    // Hold the ceiling and queue the job in one transaction: a job exists only with its reservation.
    const row = await this.#db.transaction(async (tx) => {
      await this.#accounts.in(tx).reserve(accountId, definition.estimated_max_cost, id, `tool ${tool}: ceiling`);
      await this.#jobs.in(tx).insert({ id, accountId, tool, input, cacheKey: key, ceiling: definition.estimated_max_cost });
      return (await this.#jobs.in(tx).get(id))!;
    });
    this.#worker.wake();
    return toToolJob(row);
  }

  /** One job of the account; another account's job answers 404 like a missing one. */
  async getJob(accountId: string, jobId: string): Promise<ToolJob> {
    const row = await this.#jobs.get(jobId);
    if (!row || row.account_id !== accountId) throw new NotFoundError('job', jobId);
    return toToolJob(row);
  }

  listJobs(accountId: string, query: ListQuery = {}, tool?: string): Promise<ListPage<ToolJob>> {
    return this.#jobs.list(accountId, query, tool);
  }

  /** Resolves once the job is terminal (embedding apps and tests); polls the row. */
  async waitForJob(accountId: string, jobId: string, timeoutMs = 30_000): Promise<ToolJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.getJob(accountId, jobId);
      if (job.status === 'succeeded' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Resolves once this process runs no job (after its current claims): tests, embedding apps. */
  idle(): Promise<void> {
    return this.#worker.idle();
  }

  /** Jobs queued or running on any process sharing the database. */
  unfinishedCount(): Promise<number> {
    return this.#jobs.unfinishedCount();
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
  }

  async #finishFailed(row: JobRow, owner: string, error: unknown): Promise<void> {
    const failure = toFailure(error);
    if (failure.code !== 'timeout') this.#log.warn(`jobs: ${row.id} (${row.tool}) failed: ${failure.message}`);
    await this.#db.transaction(async (tx) => {
      if (!(await this.#jobs.in(tx).fail(row.id, owner, failure.code, failure.message))) return;
      await this.#accounts.in(tx).release(row.account_id, row.id, `tool ${row.tool}: failed, nothing charged`);
    });
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
