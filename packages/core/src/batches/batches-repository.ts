import type { LeaseQueue } from '../internal/leased-worker';
import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, type Repository, type SqlClient, SqlLeaseQueue } from '../storage';
import type { Batch, BatchError, BatchStatus } from './wire/batches';

export interface BatchRow {
  id: string;
  account_id: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  model: string | null;
  metadata: string | null;
  output_expires_seconds: number | null;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: string | null;
  total: number;
  completed: number;
  failed: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  created_ms: number;
  created_at: number;
  expires_at: number;
  deadline_ms: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  lease_owner: string | null;
  attempts: number;
  /** The API key of the request that created the batch (its hold and lines are charged to it), when one did. */
  key_id?: string | null;
}

/** Token counts of one line's answer, as the batch sums them. */
export interface LineUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  total: number;
}

export const NO_USAGE: LineUsage = { input: 0, cached: 0, output: 0, reasoning: 0, total: 0 };

/** A line's recorded result: which file it goes to and its output line (JSON text). */
export interface LineResult {
  state: 'completed' | 'failed';
  output: string;
  usage: LineUsage;
}

/** Statuses a batch is worked on in (claimable by the lease queue). */
export const ACTIVE_STATUSES: readonly BatchStatus[] = ['validating', 'in_progress', 'finalizing', 'cancelling'];
const ACTIVE = `status IN ('validating', 'in_progress', 'finalizing', 'cancelling')`;
const TIMESTAMPS = ['in_progress_at', 'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at'] as const;

export function toBatch(row: BatchRow): Batch {
  const errors: BatchError[] | null = row.errors ? JSON.parse(row.errors) : null;
  const batch: Batch = {
    id: row.id,
    object: 'batch',
    endpoint: row.endpoint,
    input_file_id: row.input_file_id,
    completion_window: row.completion_window,
    status: row.status,
    created_at: row.created_at,
    expires_at: row.expires_at,
    metadata: row.metadata ? JSON.parse(row.metadata) : null,
    request_counts: { total: row.total, completed: row.completed, failed: row.failed },
    usage: {
      input_tokens: row.input_tokens,
      input_tokens_details: { cached_tokens: row.cached_tokens },
      output_tokens: row.output_tokens,
      output_tokens_details: { reasoning_tokens: row.reasoning_tokens },
      total_tokens: row.total_tokens,
    },
  };
  for (const name of TIMESTAMPS) if (row[name] !== null) batch[name] = row[name];
  if (row.output_file_id) batch.output_file_id = row.output_file_id;
  if (row.error_file_id) batch.error_file_id = row.error_file_id;
  if (errors) batch.errors = { object: 'list', data: errors };
  if (row.model) batch.model = row.model;
  return batch;
}

export type NewBatch = Pick<
  BatchRow,
  | 'id'
  | 'account_id'
  | 'endpoint'
  | 'input_file_id'
  | 'completion_window'
  | 'metadata'
  | 'output_expires_seconds'
  | 'created_ms'
  | 'created_at'
  | 'expires_at'
  | 'deadline_ms'
  | 'key_id'
>;

/**
 * Storage of batches and their lines. Status changes of a running batch are conditioned on the lease
 * owner, so a process that lost the batch cannot move it on; line results are recorded once (a line
 * whose result is already there is not counted again).
 */
export interface BatchesRepository extends Repository<BatchesRepository> {
  insert(batch: NewBatch): Promise<void>;
  get(id: string): Promise<BatchRow | undefined>;
  list(accountId: string, query: ListQuery): Promise<ListPage<Batch>>;
  /** `validating` -> `in_progress` with the line count and model, for the lease owner. */
  startProgress(id: string, owner: string, total: number, model: string | null, at: number): Promise<boolean>;
  /** -> `finalizing` from `in_progress`, for the lease owner. */
  startFinalizing(id: string, owner: string, at: number): Promise<boolean>;
  /** `validating`/`in_progress` -> `cancelling`; false when the batch is in no state that can be cancelled. */
  cancel(id: string, at: number): Promise<boolean>;
  /** Records an output or error file of the batch (once written), for the lease owner. */
  setFile(id: string, owner: string, kind: 'output' | 'error', fileId: string): Promise<void>;
  /** -> a terminal status with its timestamp (and the validation errors of a failed batch), for the lease owner. */
  finish(
    id: string,
    owner: string,
    status: 'completed' | 'failed' | 'expired' | 'cancelled',
    at: number,
    errors?: BatchError[],
  ): Promise<boolean>;
  /** The custom_ids of the lines already sent or answered, with their state. */
  lineStates(batchId: string): Promise<Map<string, 'sent' | 'completed' | 'failed'>>;
  /** Records that a line's request is about to be sent (before it is). */
  markSent(batchId: string, customId: string, line: number): Promise<void>;
  /** A sent line's result; counted once. False when the line had a result already. */
  finishSent(batchId: string, customId: string, result: LineResult): Promise<boolean>;
  /** A result for a line never sent (expired, cancelled); counted once. */
  recordUnsent(batchId: string, customId: string, line: number, result: LineResult): Promise<boolean>;
  /** Output lines of one state in input order, `limit` at a time after line `afterLine`. */
  outputs(
    batchId: string,
    state: 'completed' | 'failed',
    afterLine: number,
    limit: number,
  ): Promise<Array<{ line: number; output: string }>>;
  /** The lines left `sent` (in flight when a process stopped). */
  sentLines(batchId: string): Promise<Array<{ custom_id: string; line: number }>>;
  queue(): LeaseQueue<BatchRow>;
}

export class SqlBatchesRepository implements BatchesRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): BatchesRepository {
    return new SqlBatchesRepository(tx);
  }

  async insert(batch: NewBatch): Promise<void> {
    await this.db.run(
      `INSERT INTO batches (id, account_id, endpoint, input_file_id, completion_window, status, metadata, output_expires_seconds,
         created_ms, created_at, expires_at, deadline_ms, key_id)
       VALUES (?, ?, ?, ?, ?, 'validating', ?, ?, ?, ?, ?, ?, ?)`,
      [
        batch.id,
        batch.account_id,
        batch.endpoint,
        batch.input_file_id,
        batch.completion_window,
        batch.metadata,
        batch.output_expires_seconds,
        batch.created_ms,
        batch.created_at,
        batch.expires_at,
        batch.deadline_ms,
        batch.key_id ?? null,
      ],
    );
  }

  get(id: string): Promise<BatchRow | undefined> {
    return this.db.get<BatchRow>('SELECT * FROM batches WHERE id = ?', [id]);
  }

  list(accountId: string, query: ListQuery): Promise<ListPage<Batch>> {
    return paginate<BatchRow, Batch>(this.db, {
      table: 'batches',
      columns: `id, account_id, endpoint, input_file_id, completion_window, status, model, metadata, output_file_id, error_file_id, errors,
        total, completed, failed, input_tokens, cached_tokens, output_tokens, reasoning_tokens, total_tokens, created_at, expires_at,
        ${TIMESTAMPS.join(', ')}`,
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: toBatch,
    });
  }

  async startProgress(id: string, owner: string, total: number, model: string | null, at: number): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE batches SET status = 'in_progress', total = ?, model = ?, in_progress_at = ?
       WHERE id = ? AND status = 'validating' AND lease_owner = ?`,
      [total, model, at, id, owner],
    );
    return update.changes > 0;
  }

  async startFinalizing(id: string, owner: string, at: number): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE batches SET status = 'finalizing', finalizing_at = ? WHERE id = ? AND status = 'in_progress' AND lease_owner = ?`,
      [at, id, owner],
    );
    return update.changes > 0;
  }

  async cancel(id: string, at: number): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE batches SET status = 'cancelling', cancelling_at = ? WHERE id = ? AND status IN ('validating', 'in_progress')`,
      [at, id],
    );
    return update.changes > 0;
  }

  async setFile(id: string, owner: string, kind: 'output' | 'error', fileId: string): Promise<void> {
    const column = kind === 'output' ? 'output_file_id' : 'error_file_id';
    await this.db.run(`UPDATE batches SET ${column} = ? WHERE id = ? AND lease_owner = ? AND ${ACTIVE}`, [fileId, id, owner]);
  }

  async finish(
    id: string,
    owner: string,
    status: 'completed' | 'failed' | 'expired' | 'cancelled',
    at: number,
    errors?: BatchError[],
  ): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE batches SET status = ?, ${status}_at = ?, errors = COALESCE(?, errors), lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND ${ACTIVE}`,
      [status, at, errors ? JSON.stringify(errors) : null, id, owner],
    );
    return update.changes > 0;
  }

  async lineStates(batchId: string): Promise<Map<string, 'sent' | 'completed' | 'failed'>> {
    const rows = await this.db.all<{ custom_id: string; state: 'sent' | 'completed' | 'failed' }>(
      'SELECT custom_id, state FROM batch_lines WHERE batch_id = ?',
      [batchId],
    );
    return new Map(rows.map((row) => [row.custom_id, row.state]));
  }

  async markSent(batchId: string, customId: string, line: number): Promise<void> {
    await this.db.run(
      `INSERT INTO batch_lines (batch_id, custom_id, line, state) VALUES (?, ?, ?, 'sent') ON CONFLICT (batch_id, custom_id) DO NOTHING`,
      [batchId, customId, line],
    );
  }

  finishSent(batchId: string, customId: string, result: LineResult): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const update = await tx.run(`UPDATE batch_lines SET state = ?, output = ? WHERE batch_id = ? AND custom_id = ? AND state = 'sent'`, [
        result.state,
        result.output,
        batchId,
        customId,
      ]);
      if (update.changes === 0) return false;
      await count(tx, batchId, result);
      return true;
    });
  }

  recordUnsent(batchId: string, customId: string, line: number, result: LineResult): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const insert = await tx.run(
        `INSERT INTO batch_lines (batch_id, custom_id, line, state, output) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (batch_id, custom_id) DO NOTHING`,
        [batchId, customId, line, result.state, result.output],
      );
      if (insert.changes === 0) return false;
      await count(tx, batchId, result);
      return true;
    });
  }

  outputs(
    batchId: string,
    state: 'completed' | 'failed',
    afterLine: number,
    limit: number,
  ): Promise<Array<{ line: number; output: string }>> {
    return this.db.all<{ line: number; output: string }>(
      'SELECT line, output FROM batch_lines WHERE batch_id = ? AND state = ? AND line > ? ORDER BY line LIMIT ?',
      [batchId, state, afterLine, limit],
    );
  }

  sentLines(batchId: string): Promise<Array<{ custom_id: string; line: number }>> {
    return this.db.all<{ custom_id: string; line: number }>(
      `SELECT custom_id, line FROM batch_lines WHERE batch_id = ? AND state = 'sent' ORDER BY line`,
      [batchId],
    );
  }

  queue(): LeaseQueue<BatchRow> {
    return new SqlLeaseQueue<BatchRow>(this.db, {
      table: 'batches',
      waiting: `${ACTIVE} AND lease_owner IS NULL`,
      working: `${ACTIVE} AND lease_owner IS NOT NULL`,
      order: 'created_ms',
      toTask: (row) => row as unknown as BatchRow,
    });
  }
}

/** Adds one line's result to the batch's counts and usage (inside the transaction that recorded it). */
async function count(tx: SqlClient, batchId: string, result: LineResult): Promise<void> {
  const { usage } = result;
  await tx.run(
    `UPDATE batches SET completed = completed + ?, failed = failed + ?, input_tokens = input_tokens + ?, cached_tokens = cached_tokens + ?,
       output_tokens = output_tokens + ?, reasoning_tokens = reasoning_tokens + ?, total_tokens = total_tokens + ?
     WHERE id = ?`,
    [
      result.state === 'completed' ? 1 : 0,
      result.state === 'failed' ? 1 : 0,
      usage.input,
      usage.cached,
      usage.output,
      usage.reasoning,
      usage.total,
      batchId,
    ],
  );
}
