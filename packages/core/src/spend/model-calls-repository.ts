import type { Repository, SqlClient } from '../storage';

/** One model call as `model_calls` keeps it: held while it runs, settled with its usage and cost. */
export interface ModelCallRow {
  id: string;
  account_id: string;
  key_id: string | null;
  request_id: string;
  api: string;
  model: string;
  hold_micros: number;
  input_micros: number;
  created_at: number;
  expires_at: number;
}

/** Usage of one group of `GET /v1/usage?group_by=…`. */
export interface ModelCallGroup {
  day?: string;
  model?: string;
  key_id?: string | null;
  api?: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micros: number;
}

export type UsageGroupBy = 'day' | 'model' | 'key' | 'api';

export interface UsageGroupsQuery {
  start: number;
  end: number;
  groupBy: readonly UsageGroupBy[];
  model?: string;
}

/** Storage of model calls; the money itself moves through `Accounts` in the same transactions. */
export interface ModelCallsRepository extends Repository<ModelCallsRepository> {
  insertHeld(row: ModelCallRow): Promise<void>;
  /** Marks a held call settled with what it used; false when it was settled already (by a sweep or another finish). */
  settle(id: string, usage: { prompt: number; completion: number; cost: number }): Promise<boolean>;
  /** A call that was never held (a free model, or a batch line the batch's hold pays for) recorded settled, for the usage views. */
  insertSettled(
    row: Omit<ModelCallRow, 'hold_micros' | 'input_micros' | 'expires_at'>,
    usage: { prompt: number; completion: number; cost?: number },
  ): Promise<void>;
  /** A held call answered before its hold was written, recorded settled at once (its id refuses a second). */
  insertAnswered(row: ModelCallRow, usage: { prompt: number; completion: number; cost: number }): Promise<void>;
  /** Held calls whose hold expired (their process died), oldest first. */
  expired(now: number, limit: number): Promise<ModelCallRow[]>;
  groups(accountId: string, query: UsageGroupsQuery): Promise<ModelCallGroup[]>;
}

const COLUMNS = 'id, account_id, key_id, request_id, api, model, hold_micros, input_micros, created_at, expires_at';

/** A call row's values in the order of `COLUMNS`. */
function valuesOf(row: ModelCallRow): unknown[] {
  return [
    row.id,
    row.account_id,
    row.key_id,
    row.request_id,
    row.api,
    row.model,
    row.hold_micros,
    row.input_micros,
    row.created_at,
    row.expires_at,
  ];
}

export class SqlModelCallsRepository implements ModelCallsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): ModelCallsRepository {
    return new SqlModelCallsRepository(tx);
  }

  async insertHeld(row: ModelCallRow): Promise<void> {
    await this.db.run(`INSERT INTO model_calls (${COLUMNS}, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'held')`, valuesOf(row));
  }

  async settle(id: string, usage: { prompt: number; completion: number; cost: number }): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE model_calls SET status = 'settled', prompt_tokens = ?, completion_tokens = ?, cost_micros = ? WHERE id = ? AND status = 'held'`,
      [usage.prompt, usage.completion, usage.cost, id],
    );
    return result.changes > 0;
  }

  async insertSettled(
    row: Omit<ModelCallRow, 'hold_micros' | 'input_micros' | 'expires_at'>,
    usage: { prompt: number; completion: number; cost?: number },
  ): Promise<void> {
    // Nothing held: no hold, no input estimate, nothing to expire.
    await this.insertAnswered({ ...row, hold_micros: 0, input_micros: 0, expires_at: row.created_at }, { ...usage, cost: usage.cost ?? 0 });
  }

  async insertAnswered(row: ModelCallRow, usage: { prompt: number; completion: number; cost: number }): Promise<void> {
    await this.db.run(
      `INSERT INTO model_calls (${COLUMNS}, status, prompt_tokens, completion_tokens, cost_micros) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'settled', ?, ?, ?)`,
      [...valuesOf(row), usage.prompt, usage.completion, usage.cost],
    );
  }

  expired(now: number, limit: number): Promise<ModelCallRow[]> {
    return this.db.all<ModelCallRow>(
      `SELECT ${COLUMNS} FROM model_calls WHERE status = 'held' AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
      [now, limit],
    );
  }

  groups(accountId: string, query: UsageGroupsQuery): Promise<ModelCallGroup[]> {
    const day =
      this.db.dialect === 'postgres'
        ? "to_char(to_timestamp(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
        : "strftime('%Y-%m-%d', created_at, 'unixepoch')";
    const expressions: Record<UsageGroupBy, string> = { day: `${day} AS day`, model: 'model', key: 'key_id', api: 'api' };
    const names: Record<UsageGroupBy, string> = { day: 'day', model: 'model', key: 'key_id', api: 'api' };
    const selected = query.groupBy.map((name) => expressions[name]);
    const grouped = query.groupBy.map((name) => names[name]);
    return this.db.all<ModelCallGroup>(
      `SELECT ${[...selected, ''].join(', ')} COUNT(*) AS requests, COALESCE(SUM(prompt_tokens), 0) AS prompt_tokens,
         COALESCE(SUM(completion_tokens), 0) AS completion_tokens, COALESCE(SUM(cost_micros), 0) AS cost_micros
       FROM model_calls WHERE account_id = ? AND status = 'settled' AND created_at >= ? AND created_at < ?${query.model ? ' AND model = ?' : ''}
       ${grouped.length ? `GROUP BY ${grouped.join(', ')} ORDER BY ${grouped.join(', ')}` : ''}`,
      [accountId, query.start, query.end, ...(query.model ? [query.model] : [])],
    );
  }
}
