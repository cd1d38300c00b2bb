import type { LeasedTask, LeaseQueue } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { currentRequestId } from '../observability/request-context';
import { isUniqueViolation, paginate, placeholders, type Repository, type SqlClient, SqlLeaseQueue } from '../storage';
import type { RunState } from './run-state';
import { ACTIVE_RUN_STATUSES } from './schema';
import type { Run, RunStatus, RunStep } from './types';

/** A run as its executor reads it: the object, its resumable state, owner account and lease. */
export interface StoredRun {
  run: Run;
  state: RunState;
  accountId: string;
  attempts: number;
  leaseOwner: string | null;
  /** The API key of the request that created the run (charged for every model turn), when one did. */
  keyId?: string | null;
}

/** A lease on a run: the process (`owner`) that executes it until `until` (ms) unless renewed. */
export interface RunLease {
  owner: string;
  until: number;
}

/** What the run workers claim: a run id and how many times it was claimed since it last started. */
export type RunTask = LeasedTask;

interface RunRow {
  data: string;
  status: RunStatus;
  metadata: string | null;
}

/** Statuses of runs a process executes (and holds a lease on). */
const EXECUTING = `status IN ('queued', 'in_progress', 'cancelling')`;

/**
 * Storage of runs and run steps. Runs are leased: the executing process writes the run only while it
 * holds the lease (`saveOwned`); everyone else changes a run only by conditional status transitions
 * (`transition`, `requestCancel`) or through the columns that win over `data` (`status`, `metadata`).
 */
export interface RunsRepository extends Repository<RunsRepository> {
  /**
   * Inserts a queued run already leased to `lease.owner` (the process whose request created it runs it).
   * False when the thread already has an active run (at most one per thread, enforced by the table).
   */
  insert(accountId: string, run: Run, state: RunState, lease: RunLease, keyId?: string | null): Promise<boolean>;
  get(accountId: string, threadId: string, id: string): Promise<Run | undefined>;
  byId(id: string): Promise<StoredRun | undefined>;
  list(accountId: string, threadId: string, query: ListQuery): Promise<ListPage<Run>>;
  /** The run of this thread that is not finished yet, if any. */
  activeRunOf(threadId: string): Promise<Run | undefined>;
  /**
   * Writes the run (its status column from `run.status`) and state while `owner` holds the lease and the
   * stored status is one of `from`; `release` ends the lease (the run paused or finished). False otherwise.
   */
  saveOwned(run: Run, state: RunState, owner: string, from: readonly RunStatus[], release?: boolean): Promise<boolean>;
  /** Whether `owner` still holds the executing run; inside a transaction it also locks the row until commit. */
  holds(id: string, owner: string): Promise<boolean>;
  /**
   * A transition of a run nobody executes (requires_action -> queued/cancelled/expired), when its stored
   * status is one of `from`. With `claim`, the run is leased to that owner (its attempts start again at 1).
   */
  transition(run: Run, state: RunState, from: readonly RunStatus[], claim?: RunLease): Promise<boolean>;
  /** queued/in_progress -> cancelling; the executor sees it at its next write. False when not executing. */
  requestCancel(id: string): Promise<boolean>;
  setMetadata(id: string, metadata: Record<string, string>): Promise<void>;
  deleteThreadRuns(threadId: string): Promise<void>;
  insertStep(accountId: string, step: RunStep): Promise<void>;
  saveStep(step: RunStep): Promise<void>;
  deleteStep(id: string): Promise<void>;
  stepById(id: string): Promise<RunStep | undefined>;
  getStep(accountId: string, threadId: string, runId: string, id: string): Promise<RunStep | undefined>;
  listSteps(runId: string, query: ListQuery): Promise<ListPage<RunStep>>;
  /** Steps of a run still `in_progress`. */
  openSteps(runId: string): Promise<RunStep[]>;
  /** The queue run workers claim from: runs being executed whose lease ended, or that were given back. */
  queue(): LeaseQueue<RunTask>;
}

/** The SQL of runs and steps, the same on SQLite and PostgreSQL. */
export class SqlRunsRepository implements RunsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): RunsRepository {
    return new SqlRunsRepository(tx);
  }

  async insert(accountId: string, run: Run, state: RunState, lease: RunLease, keyId: string | null = null): Promise<boolean> {
    try {
      await this.db.run(
        `INSERT INTO runs (id, account_id, thread_id, status, data, state, lease_owner, lease_until, attempts, created_ms, key_id, request_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
        [
          run.id,
          accountId,
          run.thread_id,
          run.status,
          JSON.stringify(run),
          JSON.stringify(state),
          lease.owner,
          lease.until,
          Date.now(),
          keyId,
          // The request that created the run: kept in the database only (the run object is OpenAI's shape).
          currentRequestId(),
        ],
      );
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async get(accountId: string, threadId: string, id: string): Promise<Run | undefined> {
    const row = await this.db.get<RunRow>('SELECT data, status, metadata FROM runs WHERE id = ? AND thread_id = ? AND account_id = ?', [
      id,
      threadId,
      accountId,
    ]);
    return row && toRun(row);
  }

  async byId(id: string): Promise<StoredRun | undefined> {
    const row = await this.db.get<
      RunRow & { state: string; account_id: string; attempts: number; lease_owner: string | null; key_id: string | null }
    >('SELECT data, status, metadata, state, account_id, attempts, lease_owner, key_id FROM runs WHERE id = ?', [id]);
    if (!row) return undefined;
    return {
      run: toRun(row),
      state: JSON.parse(row.state),
      accountId: row.account_id,
      attempts: row.attempts,
      leaseOwner: row.lease_owner,
      keyId: row.key_id,
    };
  }

  list(accountId: string, threadId: string, query: ListQuery): Promise<ListPage<Run>> {
    return paginate<RunRow, Run>(this.db, {
      table: 'runs',
      // Not `state` (the run's resumable conversation): the run object is `data` with its status and metadata.
      columns: 'data, status, metadata',
      where: 'thread_id = ? AND account_id = ?',
      params: [threadId, accountId],
      query,
      map: toRun,
    });
  }

  async activeRunOf(threadId: string): Promise<Run | undefined> {
    const row = await this.db.get<RunRow>(
      `SELECT data, status, metadata FROM runs WHERE thread_id = ? AND status IN ${placeholders(ACTIVE_RUN_STATUSES.length)} LIMIT 1`,
      [threadId, ...ACTIVE_RUN_STATUSES],
    );
    return row && toRun(row);
  }

  async saveOwned(run: Run, state: RunState, owner: string, from: readonly RunStatus[], release = false): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE runs SET status = ?, data = ?, state = ?${release ? ', lease_until = NULL' : ''}
       WHERE id = ? AND lease_owner = ? AND status IN ${placeholders(from.length)}`,
      [run.status, JSON.stringify(run), JSON.stringify(state), run.id, owner, ...from],
    );
    return result.changes > 0;
  }

  async holds(id: string, owner: string): Promise<boolean> {
    // A no-op write rather than a read: on PostgreSQL it locks the row, so a takeover waits for the transaction.
    const result = await this.db.run(`UPDATE runs SET lease_owner = lease_owner WHERE id = ? AND lease_owner = ? AND ${EXECUTING}`, [
      id,
      owner,
    ]);
    return result.changes > 0;
  }

  async transition(run: Run, state: RunState, from: readonly RunStatus[], claim?: RunLease): Promise<boolean> {
    const lease = claim ? ', lease_owner = ?, lease_until = ?, attempts = 1' : '';
    const result = await this.db.run(
      `UPDATE runs SET status = ?, data = ?, state = ?${lease} WHERE id = ? AND status IN ${placeholders(from.length)}`,
      [run.status, JSON.stringify(run), JSON.stringify(state), ...(claim ? [claim.owner, claim.until] : []), run.id, ...from],
    );
    return result.changes > 0;
  }

  async requestCancel(id: string): Promise<boolean> {
    const result = await this.db.run("UPDATE runs SET status = 'cancelling' WHERE id = ? AND status IN ('queued', 'in_progress')", [id]);
    return result.changes > 0;
  }

  async setMetadata(id: string, metadata: Record<string, string>): Promise<void> {
    await this.db.run('UPDATE runs SET metadata = ? WHERE id = ?', [JSON.stringify(metadata), id]);
  }

  async deleteThreadRuns(threadId: string): Promise<void> {
    await this.db.run('DELETE FROM run_steps WHERE thread_id = ?', [threadId]);
    await this.db.run('DELETE FROM runs WHERE thread_id = ?', [threadId]);
  }

  async insertStep(accountId: string, step: RunStep): Promise<void> {
    await this.db.run('INSERT INTO run_steps (id, account_id, thread_id, run_id, status, data) VALUES (?, ?, ?, ?, ?, ?)', [
      step.id,
      accountId,
      step.thread_id,
      step.run_id,
      step.status,
      JSON.stringify(step),
    ]);
  }

  async saveStep(step: RunStep): Promise<void> {
    await this.db.run('UPDATE run_steps SET status = ?, data = ? WHERE id = ?', [step.status, JSON.stringify(step), step.id]);
  }

  async deleteStep(id: string): Promise<void> {
    await this.db.run('DELETE FROM run_steps WHERE id = ?', [id]);
  }

  async stepById(id: string): Promise<RunStep | undefined> {
    const row = await this.db.get<{ data: string }>('SELECT data FROM run_steps WHERE id = ?', [id]);
    return row && (JSON.parse(row.data) as RunStep);
  }

  async getStep(accountId: string, threadId: string, runId: string, id: string): Promise<RunStep | undefined> {
    const row = await this.db.get<{ data: string }>(
      'SELECT data FROM run_steps WHERE id = ? AND run_id = ? AND thread_id = ? AND account_id = ?',
      [id, runId, threadId, accountId],
    );
    return row && (JSON.parse(row.data) as RunStep);
  }

  listSteps(runId: string, query: ListQuery): Promise<ListPage<RunStep>> {
    return paginate<{ data: string }, RunStep>(this.db, {
      table: 'run_steps',
      columns: 'data',
      where: 'run_id = ?',
      params: [runId],
      query,
      map: (row) => JSON.parse(row.data) as RunStep,
    });
  }

  async openSteps(runId: string): Promise<RunStep[]> {
    const order = this.db.dialect === 'sqlite' ? 'rowid' : 'seq';
    const rows = await this.db.all<{ data: string }>(
      `SELECT data FROM run_steps WHERE run_id = ? AND status = 'in_progress' ORDER BY ${order}`,
      [runId],
    );
    return rows.map((row) => JSON.parse(row.data) as RunStep);
  }

  queue(): LeaseQueue<RunTask> {
    return new SqlLeaseQueue<RunTask>(this.db, {
      table: 'runs',
      waiting: `${EXECUTING} AND lease_owner IS NULL`,
      working: `${EXECUTING} AND lease_owner IS NOT NULL`,
      order: 'created_ms',
      toTask: (row) => ({ id: String(row.id), attempts: Number(row.attempts) }),
    });
  }
}

/** The stored object with the columns that win over it: `status`, and `metadata` once set by an update. */
function toRun(row: RunRow): Run {
  const run = JSON.parse(row.data) as Run;
  run.status = row.status;
  if (row.metadata !== null) run.metadata = JSON.parse(row.metadata);
  return run;
}
