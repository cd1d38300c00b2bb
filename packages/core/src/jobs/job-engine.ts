import type { Accounts } from '../accounts';
import type { FathomConfig } from '../config';
import type { Database } from '../db';
import type { EgressGuardContract } from '../egress/types';
import { FathomError, NotFoundError, ServiceUnavailableError } from '../errors';
import { newId } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { ChatAdapterContract } from '../models/types';
import { findTool, TOOL_CATALOG, type ToolDefinition } from './catalog';
import { JobStore, toToolJob, type JobRow, type ToolJob } from './job-store';
import { enforcePolicy } from './policy';
import { readJobSettings, type JobSettings } from './settings';
import { createToolSources, type ConfiguredSources } from './sources/create-tool-sources';
import type { ToolOutput, ToolSource } from './types';
import { cacheKey, validateToolInput } from './validate-input';

export interface JobEngineOptions {
  db: Database;
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

/**
 * Data-tool jobs: validates and prices a start, holds the ceiling and queues the job in one transaction,
 * runs jobs from the durable SQLite queue with bounded concurrency and a per-job timeout, bills the actual
 * cost exactly once, and answers identical inputs from cache or from the provider call already in flight.
 */
export class JobEngine {
  readonly settings: JobSettings;
  readonly #accounts: Accounts;
  readonly #log: Logger;
  readonly #store: JobStore;
  readonly #sources: ConfiguredSources;
  readonly #inFlight = new Map<string, Promise<ToolOutput>>();
  readonly #running = new Set<Promise<void>>();
  readonly #controllers = new Set<AbortController>();
  #active = 0;
  #started = false;
  #closed = false;
  #sweep: NodeJS.Timeout | undefined;
  #pumpScheduled = false;
  readonly #reserveAndQueue: (job: Parameters<JobStore['insert']>[0]) => void;
  readonly #succeedAndSettle: (row: JobRow, cost: number, cached: boolean, result: ToolResult) => void;
  readonly #failAndRelease: (row: JobRow, code: string, message: string) => void;

  constructor(options: JobEngineOptions) {
    this.#accounts = options.accounts;
    this.#log = options.log;
    this.#store = new JobStore(options.db);
    // Hold the ceiling and queue the job in one transaction: a job exists only with its reservation.
    this.#reserveAndQueue = options.db.transaction((job: Parameters<JobStore['insert']>[0]) => {
      this.#accounts.reserve(job.accountId, job.ceiling, job.id, `tool ${job.tool}: ceiling`);
      this.#store.insert(job);
    });
    this.#succeedAndSettle = options.db.transaction((row: JobRow, cost: number, cached: boolean, result: ToolResult) => {
      if (!this.#store.succeed(row.id, cost, cached, result)) return;
      this.#accounts.settle(row.account_id, row.id, cost, `tool ${row.tool}: ${cached ? 'served from cache' : 'actual cost'}`);
    });
    this.#failAndRelease = options.db.transaction((row: JobRow, code: string, message: string) => {
      if (!this.#store.fail(row.id, code, message)) return;
      this.#accounts.release(row.account_id, row.id, `tool ${row.tool}: failed, nothing charged`);
    });
    this.settings = { ...readJobSettings(options.config.env), ...options.settings };
    this.#sources = createToolSources({
      env: options.config.env,
      egress: options.egress,
      chat: options.chat,
      overrides: options.sources,
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
  startJob(accountId: string, tool: string, body: unknown): ToolJob {
    const definition = findTool(tool);
    if (!definition) {
      throw new NotFoundError('tool', tool, 'tool');
    }
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
    this.#reserveAndQueue({ id, accountId, tool, input, cacheKey: key, ceiling: definition.estimated_max_cost });
    this.#schedulePump();
    return toToolJob(this.#store.get(id)!);
  }

  /** One job of the account; another account's job answers 404 like a missing one. */
  getJob(accountId: string, jobId: string): ToolJob {
    const row = this.#store.get(jobId);
    if (!row || row.account_id !== accountId) throw new NotFoundError('job', jobId);
    return toToolJob(row);
  }

  listJobs(accountId: string, query: ListQuery = {}, tool?: string): ListPage<ToolJob> {
    return this.#store.list(accountId, query, tool);
  }

  /** Resolves once the job is terminal (embedding apps and tests); polls the row. */
  async waitForJob(accountId: string, jobId: string, timeoutMs = 30_000): Promise<ToolJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = this.getJob(accountId, jobId);
      if (job.status === 'succeeded' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /**
   * Resumes the durable queue: jobs a previous process left `running` are re-queued (or failed and
   * released once they used `maxAttempts`), then queued jobs run. Never stuck, never billed twice:
   * billing and the terminal status are written in one transaction.
   */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    for (const row of this.#store.interrupted()) {
      if (row.attempts >= this.settings.maxAttempts) {
        this.#finishFailed(
          row,
          new JobFailure(
            'job_interrupted',
            `The job was interrupted ${row.attempts} time(s) by a restart and was not retried again; nothing was charged.`,
          ),
        );
      } else {
        this.#store.requeue(row.id);
      }
    }
    this.#sweep = setInterval(() => this.#schedulePump(), this.settings.sweepMs);
    this.#sweep.unref();
    this.#schedulePump();
  }

  /**
   * Stops claiming jobs, aborts running ones and puts them back in the queue (a shutdown does not count as an
   * attempt; a crash, which leaves them `running`, does) and waits for them. Call before closing the database.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sweep) clearInterval(this.#sweep);
    for (const controller of this.#controllers) controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.#running]);
  }

  #schedulePump(): void {
    if (!this.#started || this.#closed || this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Claims queued jobs while provider slots are free; cache hits and in-flight joins take no slot. */
  #pump(): void {
    while (!this.#closed && this.#active < this.settings.concurrency) {
      const rows = this.#store.claim(this.settings.concurrency - this.#active);
      if (rows.length === 0) return;
      for (const row of rows) {
        const task = this.#run(row).catch((error) => this.#log.error(`jobs: ${row.id} crashed: ${String(error)}`));
        this.#running.add(task);
        void task.finally(() => this.#running.delete(task));
      }
    }
  }

  async #run(row: JobRow): Promise<void> {
    const input = JSON.parse(row.input) as Record<string, any>;
    const ttlMs = this.settings.cacheTtlSeconds * 1000;
    const cached = ttlMs > 0 ? this.#store.findCached(row.cache_key, Date.now() - ttlMs) : undefined;
    if (cached !== undefined) {
      this.#finishSucceeded(row, cached as ToolResult, 0, true);
      return;
    }
    const shared = this.#inFlight.get(row.cache_key);
    if (shared) {
      await shared.then(
        (output) => this.#finishSucceeded(row, toResult(output), 0, true),
        (error) => {
          if (this.#closed)
            this.#store.requeue(row.id, true); // shutdown: runs again on the next start
          else this.#finishFailed(row, error);
        },
      );
      return;
    }
    const source = this.#sources.sources.get(row.tool);
    if (!source) {
      this.#finishFailed(
        row,
        new JobFailure('tool_unavailable', `The tool '${row.tool}' is no longer configured. ${this.#sources.howToConfigure(row.tool)}`),
      );
      return;
    }
    this.#active++;
    const controller = new AbortController();
    this.#controllers.add(controller);
    const timer = setTimeout(
      () =>
        controller.abort(
          new JobFailure('timeout', `The job exceeded its time limit of ${this.settings.jobTimeoutMs} ms; nothing was charged.`),
        ),
      this.settings.jobTimeoutMs,
    );
    const ceiling = row.ceiling_micros / 1_000_000;
    const call = source.run({ tool: row.tool, input, ceiling, signal: controller.signal, accountId: row.account_id });
    const raced = Promise.race([call, abortPromise(controller.signal)]);
    this.#inFlight.set(row.cache_key, raced);
    try {
      const output = await raced;
      this.#finishSucceeded(row, toResult(output), output.cost, false);
    } catch (error) {
      if (this.#closed && !(controller.signal.reason instanceof JobFailure)) {
        this.#store.requeue(row.id, true); // shutdown is not a failed attempt: the job runs again on the next start
        return;
      }
      this.#finishFailed(row, error);
    } finally {
      clearTimeout(timer);
      this.#controllers.delete(controller);
      this.#inFlight.delete(row.cache_key);
      this.#active--;
      this.#schedulePump();
    }
  }

  /** Writes the success and bills `cost` (capped at the ceiling, the rest released) in one transaction. */
  #finishSucceeded(row: JobRow, result: ToolResult, rawCost: number, cached: boolean): void {
    const ceiling = row.ceiling_micros / 1_000_000;
    const cost = Math.min(Math.max(0, Number(rawCost) || 0), ceiling);
    this.#succeedAndSettle(row, cost, cached, result);
  }

  #finishFailed(row: JobRow, error: unknown): void {
    const failure = toFailure(error);
    if (failure.code !== 'timeout') this.#log.warn(`jobs: ${row.id} (${row.tool}) failed: ${failure.message}`);
    this.#failAndRelease(row, failure.code, failure.message);
  }
}

type ToolResult = { items: unknown[]; [key: string]: unknown };

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

function toFailure(error: unknown): { code: string; message: string } {
  if (error instanceof JobFailure) return { code: error.code, message: error.message };
  if (error instanceof FathomError) return { code: error.code, message: error.message };
  const code = (error as { code?: unknown })?.code;
  return {
    code: typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'provider_error',
    message: error instanceof Error ? error.message : String(error),
  };
}
