import type { Logger } from '../internal/logger';
import type { Schema, SqlClient } from '../storage';
import { addCounters, BufferedCounters, type CounterRow, type CounterTable } from './buffered-counters';
import type { UsageRow } from './wire/usage';

/** Token usage per account, UTC day and model (one upserted row per combination). */
export const modelsSchema: Schema = {
  component: 'models',
  sqlite: [
    `CREATE TABLE model_usage (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      model TEXT NOT NULL,
      requests INTEGER NOT NULL DEFAULT 0,
      prompt_tokens INTEGER NOT NULL DEFAULT 0,
      completion_tokens INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, model)
    ) WITHOUT ROWID;`,
  ],
  postgres: [
    `CREATE TABLE model_usage (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      model TEXT NOT NULL,
      requests BIGINT NOT NULL DEFAULT 0,
      prompt_tokens BIGINT NOT NULL DEFAULT 0,
      completion_tokens BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, model)
    );`,
  ],
};

export interface UsageQuery {
  /** First day included, `YYYY-MM-DD`. */
  startDate?: string;
  /** Last day included, `YYYY-MM-DD`. */
  endDate?: string;
  model?: string;
}

/** The counters of `model_usage`: calls and tokens per (account, day, model). */
export const USAGE_COUNTERS: CounterTable<'account_id' | 'day' | 'model', 'requests' | 'prompt_tokens' | 'completion_tokens'> = {
  table: 'model_usage',
  keys: ['account_id', 'day', 'model'],
  counts: ['requests', 'prompt_tokens', 'completion_tokens'],
};

/** Calls and tokens to add to one (account, day, model) row. */
export type UsageIncrement = CounterRow<(typeof USAGE_COUNTERS.keys)[number], (typeof USAGE_COUNTERS.counts)[number]>;

/** Storage of usage counts: increments add up (several processes may add to one row at once). */
export interface UsageRepository {
  add(increments: readonly UsageIncrement[]): Promise<void>;
  list(accountId: string, query: UsageQuery): Promise<UsageRow[]>;
}

/** The SQL of usage counts: one upsert adding to the row, the same on SQLite and PostgreSQL. */
export class SqlUsageRepository implements UsageRepository {
  constructor(private readonly db: SqlClient) {}

  add(increments: readonly UsageIncrement[]): Promise<void> {
    return addCounters(this.db, USAGE_COUNTERS, increments);
  }

  async list(accountId: string, query: UsageQuery): Promise<UsageRow[]> {
    const params: unknown[] = [accountId, query.startDate ?? '0000-00-00', query.endDate ?? '9999-99-99'];
    if (query.model !== undefined) params.push(query.model);
    const rows = await this.db.all<Omit<UsageRow, 'total_tokens'>>(
      `SELECT day AS date, model, requests, prompt_tokens, completion_tokens FROM model_usage
       WHERE account_id = ? AND day >= ? AND day <= ?${query.model !== undefined ? ' AND model = ?' : ''} ORDER BY day, model`,
      params,
    );
    return rows.map((row) => ({ ...row, total_tokens: row.prompt_tokens + row.completion_tokens }));
  }
}

export interface UsageStoreOptions {
  /** Longest time a recorded call waits in memory before it is written, ms; default 1000. */
  flushIntervalMs?: number;
  /** Where failed background writes are reported; default silent. */
  log?: Logger;
}

/**
 * Records every model call's tokens for the calling account (calls with no account are kept under '').
 * Calls are summed in memory and written as increments at most every `flushIntervalMs` (`BufferedCounters`),
 * so a busy gateway does one write per second per (account, day, model) instead of one per call, and
 * processes sharing a database add up instead of overwriting each other. Reads flush this process's calls
 * first; `close()` flushes what is left.
 */
export class UsageStore {
  private readonly repository: UsageRepository;
  private readonly counters: BufferedCounters<'account_id' | 'day' | 'model', 'requests' | 'prompt_tokens' | 'completion_tokens'>;

  constructor(db: SqlClient | UsageRepository, options: UsageStoreOptions = {}) {
    const repository = 'add' in db ? db : new SqlUsageRepository(db);
    this.repository = repository;
    this.counters = new BufferedCounters(USAGE_COUNTERS, (rows) => repository.add(rows), { ...options, what: 'usage counts' });
  }

  record(accountId: string | undefined, model: string, promptTokens: number, completionTokens: number, at = new Date()): void {
    this.counters.add({
      account_id: accountId ?? '',
      day: at.toISOString().slice(0, 10),
      model,
      requests: 1,
      prompt_tokens: Math.max(0, Math.round(promptTokens) || 0),
      completion_tokens: Math.max(0, Math.round(completionTokens) || 0),
    });
  }

  /** Writes the calls recorded in memory; on failure they stay pending for the next flush. */
  flush(): Promise<void> {
    return this.counters.flush();
  }

  async list(accountId: string, query: UsageQuery = {}): Promise<UsageRow[]> {
    await this.flush();
    return this.repository.list(accountId, query);
  }

  close(): Promise<void> {
    return this.counters.close();
  }
}
