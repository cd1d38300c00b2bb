import { fromMicros, toMicros } from '../accounts/money';
import type { Database } from '../db';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

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
}

/** A job as the API shows it (`GET /v1/tools/jobs/{id}`). */
export interface ToolJob {
  id: string;
  object: 'tool.job';
  job_id: string;
  tool: string;
  status: JobStatus;
  cached: boolean;
  estimated_max_cost: number;
  /** Actual billed cost; present once `succeeded`. */
  cost: number | null;
  result: { items: unknown[]; [key: string]: unknown } | null;
  error: { code: string; message: string } | null;
  poll_url: string;
  created_at: number;
  finished_at: number | null;
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
  };
}

/** SQL of the job queue; statements prepared once. Money moves elsewhere (Accounts), in the caller's transaction. */
export class JobStore {
  readonly #db: Database;
  readonly #insert;
  readonly #get;
  readonly #claim;
  readonly #succeed;
  readonly #fail;
  readonly #cached;
  readonly #requeue;
  readonly #running;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO tool_jobs (id, account_id, tool, input, cache_key, status, ceiling_micros, created_ms)
       VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)`,
    );
    this.#get = db.prepare<[string], JobRow>('SELECT * FROM tool_jobs WHERE id = ?');
    this.#claim = db.prepare<[number, number], JobRow>(
      `UPDATE tool_jobs SET status = 'running', attempts = attempts + 1, started_ms = ?
       WHERE id IN (SELECT id FROM tool_jobs WHERE status = 'queued' ORDER BY rowid LIMIT ?) AND status = 'queued'
       RETURNING *`,
    );
    this.#succeed = db.prepare(
      `UPDATE tool_jobs SET status = 'succeeded', cost_micros = ?, cached = ?, result = ?, finished_ms = ?
       WHERE id = ? AND status = 'running'`,
    );
    this.#fail = db.prepare(
      `UPDATE tool_jobs SET status = 'failed', error_code = ?, error_message = ?, finished_ms = ?
       WHERE id = ? AND status IN ('queued', 'running')`,
    );
    this.#cached = db.prepare<[string, number], { result: string }>(
      `SELECT result FROM tool_jobs WHERE cache_key = ? AND status = 'succeeded' AND cached = 0 AND finished_ms >= ?
       ORDER BY finished_ms DESC LIMIT 1`,
    );
    this.#requeue = db.prepare(`UPDATE tool_jobs SET status = 'queued', attempts = attempts - ? WHERE id = ? AND status = 'running'`);
    this.#running = db.prepare<[], JobRow>(`SELECT * FROM tool_jobs WHERE status = 'running'`);
  }

  insert(job: { id: string; accountId: string; tool: string; input: unknown; cacheKey: string; ceiling: number }): void {
    this.#insert.run(job.id, job.accountId, job.tool, JSON.stringify(job.input), job.cacheKey, toMicros(job.ceiling), Date.now());
  }

  get(id: string): JobRow | undefined {
    return this.#get.get(id);
  }

  /** Moves up to `count` of the oldest queued jobs to `running` in one statement (one commit), oldest first. */
  claim(count: number): JobRow[] {
    return this.#claim.all(Date.now(), count).sort((a, b) => a.created_ms - b.created_ms);
  }

  /** Reports whether the row changed (false: it already finished). */
  succeed(id: string, cost: number, cached: boolean, result: unknown): boolean {
    return this.#succeed.run(toMicros(cost), cached ? 1 : 0, JSON.stringify(result), Date.now(), id).changes > 0;
  }

  fail(id: string, code: string, message: string): boolean {
    return this.#fail.run(code, message, Date.now(), id).changes > 0;
  }

  /** A non-cached success for the key that finished at or after `sinceMs`. */
  findCached(cacheKey: string, sinceMs: number): unknown | undefined {
    const row = this.#cached.get(cacheKey, sinceMs);
    return row ? JSON.parse(row.result) : undefined;
  }

  /** Puts a running job back in the queue; `refundAttempt` when it was stopped on purpose (shutdown), not by a crash. */
  requeue(id: string, refundAttempt = false): void {
    this.#requeue.run(refundAttempt ? 1 : 0, id);
  }

  /** Jobs left `running` by a previous process. */
  interrupted(): JobRow[] {
    return this.#running.all();
  }

  list(accountId: string, query: ListQuery, tool?: string): ListPage<ToolJob> {
    return paginate<JobRow, ToolJob>(this.#db, {
      table: 'tool_jobs',
      where: tool ? 'account_id = ? AND tool = ?' : 'account_id = ?',
      params: tool ? [accountId, tool] : [accountId],
      query,
      map: toToolJob,
    });
  }
}
