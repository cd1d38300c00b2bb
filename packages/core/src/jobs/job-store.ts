import { fromMicros, toMicros } from '../accounts/money';
import type { LeaseQueue } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { currentRequestId } from '../observability/request-context';
import { currentTraceparent } from '../observability/tracing';
import { paginate, type Repository, type SqlClient, SqlLeaseQueue } from '../storage';
import type { JobStatus, ToolJob } from './wire/data-tools';

export interface JobRow {
  id: string;
  account_id: string;
  tool: string;
  input: string;
  cache_key: string;
  status: JobStatus;
  ceiling_micros: number;
  cost_micros: number | null;
  cached: number;
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  created_ms: number;
  started_ms: number | null;
  finished_ms: number | null;
  lease_owner: string | null;
  follows: string | null;
  /** The request that queued the job (`req_…`), and its W3C `traceparent` the job's span continues. */
  request_id: string | null;
  traceparent: string | null;
}

export function toToolJob(row: JobRow): ToolJob {
  return {
    id: row.id,
    object: 'tool.job',
    job_id: row.id,
    tool: row.tool,
    status: row.status,
    cached: row.cached === 1,
    estimated_max_cost: fromMicros(row.ceiling_micros),
    cost: row.status === 'succeeded' ? fromMicros(row.cost_micros ?? 0) : null,
    result: row.status === 'succeeded' && row.result ? JSON.parse(row.result) : null,
    error: row.status === 'failed' ? { code: row.error_code ?? 'job_failed', message: row.error_message ?? 'The job failed.' } : null,
    poll_url: `/v1/tools/jobs/${row.id}`,
    created_at: Math.floor(row.created_ms / 1000),
    finished_at: row.finished_ms === null ? null : Math.floor(row.finished_ms / 1000),
    request_id: row.request_id ?? null,
  };
}

export interface NewJob {
  id: string;
  accountId: string;
  tool: string;
  input: unknown;
  cacheKey: string;
  ceiling: number;
}

/** Storage of data-tool jobs. Terminal writes are conditioned on the lease, so only the current run can finish a job. */
export interface JobsRepository extends Repository<JobsRepository> {
  insert(job: NewJob): Promise<void>;
  get(id: string): Promise<JobRow | undefined>;
  /** `running` -> `succeeded` for the lease owner; false when it is not (any more) the owner's. */
  succeed(id: string, owner: string, cost: number, cached: boolean, result: unknown): Promise<boolean>;
  /** -> `failed` while not terminal (for `owner` when given); false when it already ended. */
  fail(id: string, owner: string | null, code: string, message: string): Promise<boolean>;
  /** A non-cached success for the key that finished at or after `sinceMs`. */
  findCached(cacheKey: string, sinceMs: number): Promise<unknown | undefined>;
  /**
   * Makes the job follow the oldest other identical job running without a leader itself (its provider
   * call is shared); answers that job's id, or null when this job leads. Deterministic across processes.
   */
  follow(job: JobRow): Promise<string | null>;
  list(accountId: string, query: ListQuery, tool?: string): Promise<ListPage<ToolJob>>;
  /** Jobs not finished yet, of any account (tests, operations). */
  unfinishedCount(): Promise<number>;
  /** The lease queue the job workers claim from. */
  queue(): LeaseQueue<JobRow>;
}

export class SqlJobsRepository implements JobsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): JobsRepository {
    return new SqlJobsRepository(tx);
  }

  async insert(job: NewJob): Promise<void> {
    await this.db.run(
      `INSERT INTO tool_jobs (id, account_id, tool, input, cache_key, status, ceiling_micros, created_ms, request_id, traceparent)
       VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
      [
        job.id,
        job.accountId,
        job.tool,
        JSON.stringify(job.input),
        job.cacheKey,
        toMicros(job.ceiling),
        Date.now(),
        // The request being served (the job's start), so the worker that runs it continues its log lines and trace.
        currentRequestId(),
        currentTraceparent(),
      ],
    );
  }

  get(id: string): Promise<JobRow | undefined> {
    return this.db.get<JobRow>('SELECT * FROM tool_jobs WHERE id = ?', [id]);
  }

  async succeed(id: string, owner: string, cost: number, cached: boolean, result: unknown): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE tool_jobs SET status = 'succeeded', cost_micros = ?, cached = ?, result = ?, finished_ms = ?, lease_until = NULL
       WHERE id = ? AND status = 'running' AND lease_owner = ?`,
      [toMicros(cost), cached ? 1 : 0, JSON.stringify(result), Date.now(), id, owner],
    );
    return update.changes > 0;
  }

  async fail(id: string, owner: string | null, code: string, message: string): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE tool_jobs SET status = 'failed', error_code = ?, error_message = ?, finished_ms = ?, lease_until = NULL
       WHERE id = ? AND status IN ('queued', 'running') AND (CAST(? AS TEXT) IS NULL OR lease_owner = ?)`,
      [code, message, Date.now(), id, owner, owner],
    );
    return update.changes > 0;
  }

  async findCached(cacheKey: string, sinceMs: number): Promise<unknown | undefined> {
    const row = await this.db.get<{ result: string }>(
      `SELECT result FROM tool_jobs WHERE cache_key = ? AND status = 'succeeded' AND cached = 0 AND finished_ms >= ?
       ORDER BY finished_ms DESC LIMIT 1`,
      [cacheKey, sinceMs],
    );
    return row ? JSON.parse(row.result) : undefined;
  }

  async follow(job: JobRow): Promise<string | null> {
    await this.db.run(
      `UPDATE tool_jobs SET follows = (
         SELECT l.id FROM tool_jobs l WHERE l.cache_key = ? AND l.status = 'running' AND l.follows IS NULL AND l.id <> ?
           AND (l.created_ms < ? OR (l.created_ms = ? AND l.id < ?))
         ORDER BY l.created_ms, l.id LIMIT 1)
       WHERE id = ?`,
      [job.cache_key, job.id, job.created_ms, job.created_ms, job.id, job.id],
    );
    return (await this.db.get<{ follows: string | null }>('SELECT follows FROM tool_jobs WHERE id = ?', [job.id]))?.follows ?? null;
  }

  list(accountId: string, query: ListQuery, tool?: string): Promise<ListPage<ToolJob>> {
    return paginate<JobRow, ToolJob>(this.db, {
      table: 'tool_jobs',
      // Not `input` (up to the tools body limit each): the job object does not show it.
      columns:
        'id, tool, status, ceiling_micros, cost_micros, cached, result, error_code, error_message, created_ms, finished_ms, request_id',
      where: tool ? 'account_id = ? AND tool = ?' : 'account_id = ?',
      params: tool ? [accountId, tool] : [accountId],
      query,
      map: toToolJob,
    });
  }

  async unfinishedCount(): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM tool_jobs WHERE status IN ('queued', 'running')"))!.n;
  }

  queue(): LeaseQueue<JobRow> {
    return new SqlLeaseQueue<JobRow>(this.db, {
      table: 'tool_jobs',
      waiting: "status = 'queued'",
      working: "status = 'running'",
      onClaim: "status = 'running', follows = NULL",
      onRelease: "status = 'queued'",
      order: 'created_ms',
      toTask: (row) => row as unknown as JobRow,
    });
  }
}
