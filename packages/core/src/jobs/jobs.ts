import type { Accounts } from '../accounts';
import { NotFoundError, ServiceUnavailableError } from '../errors';
import { newId } from '../internal/ids';
import type { SqlClient } from '../storage';
import { findTool } from './catalog';
import type { JobRunner } from './job-runner';
import { type JobsRepository, toToolJob } from './job-store';
import { enforcePolicy } from './policy';
import type { ConfiguredSources } from './sources/create-tool-sources';
import { cacheKey, validateToolInput } from './validate-input';
import type { ToolJob, ToolJobInput, ToolJobListParams, ToolJobsPage } from './wire/data-tools';

/** What `Jobs` works with; built by `createDataTools`. */
export interface JobsContext {
  db: SqlClient;
  accounts: Accounts;
  jobs: JobsRepository;
  sources: ConfiguredSources;
  runner: JobRunner;
}

/**
 * `fathom.jobs`: data-tool jobs, the spec's asynchronous protocol. A start is validated against the
 * tool's `input_schema` and priced, the ceiling is held and the job queued in one transaction, and the
 * answer comes at once; the job runs in the background (on any process of the database) and is billed
 * its actual cost once. Jobs belong to the account that started them: another account's id is a 404.
 */
export class Jobs {
  readonly #context: JobsContext;

  constructor(context: JobsContext) {
    this.#context = context;
  }

  /**
   * Starts a job: 404 unknown tool, 400 invalid input (naming the field) or policy refusal, 503
   * `tool_unavailable`, 402 `insufficient_balance` (no job created). Answers the queued job.
   */
  async create(accountId: string, tool: string, input: ToolJobInput): Promise<ToolJob> {
    const { db, accounts, jobs, sources, runner } = this.#context;
    const definition = findTool(tool);
    if (!definition) throw new NotFoundError('tool', tool, 'tool');
    const checked = validateToolInput(definition, input);
    enforcePolicy(tool, checked);
    if (!sources.sources.has(tool)) {
      throw new ServiceUnavailableError(
        `The tool '${tool}' is not configured on this installation. ${sources.howToConfigure(tool)}`,
        'tool_unavailable',
      );
    }
    const id = newId('job_');
    const key = cacheKey(tool, checked);
    // Hold the ceiling and queue the job in one transaction: a job exists only with its reservation.
    const row = await db.transaction(async (tx) => {
      await accounts.in(tx).reserve(accountId, definition.estimated_max_cost, id, `tool ${tool}: ceiling`);
      await jobs.in(tx).insert({ id, accountId, tool, input: checked, cacheKey: key, ceiling: definition.estimated_max_cost });
      return (await jobs.in(tx).get(id))!;
    });
    runner.wake();
    return toToolJob(row);
  }

  /** One job of the account; another account's job answers 404 like a missing one. */
  async retrieve(accountId: string, jobId: string): Promise<ToolJob> {
    const row = await this.#context.jobs.get(jobId);
    if (!row || row.account_id !== accountId) throw new NotFoundError('job', jobId);
    return toToolJob(row);
  }

  /** The account's jobs, newest first (of one tool with `query.tool`). */
  list(accountId: string, query: ToolJobListParams = {}): Promise<ToolJobsPage> {
    const { tool, ...page } = query;
    return this.#context.jobs.list(accountId, page, tool || undefined);
  }

  /** Resolves once the job is terminal (embedding apps and tests); polls the row. */
  async wait(accountId: string, jobId: string, timeoutMs = 30_000): Promise<ToolJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.retrieve(accountId, jobId);
      if (job.status === 'succeeded' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Resolves once this process runs no job (after its current claims): tests, embedding apps. */
  idle(): Promise<void> {
    return this.#context.runner.idle();
  }

  /** Jobs queued or running on any process sharing the database. */
  unfinishedCount(): Promise<number> {
    return this.#context.jobs.unfinishedCount();
  }
}
