import { silentLogger, type Logger } from '../internal/logger';
import type { Schema, SqlClient } from '../storage';
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

/** Calls and tokens to add to one (account, day, model) row. */
export interface UsageIncrement {
  accountId: string;
  day: string;
  model: string;
  requests: number;
  prompt: number;
  completion: number;
}

/** Storage of usage counts: increments add up (several processes may add to one row at once). */
export interface UsageRepository {
  add(increments: readonly UsageIncrement[]): Promise<void>;
  list(accountId: string, query: UsageQuery): Promise<UsageRow[]>;
}

/** The SQL of usage counts: one upsert adding to the row, the same on SQLite and PostgreSQL. */
export class SqlUsageRepository implements UsageRepository {
  constructor(private readonly db: SqlClient) {}

  async add(increments: readonly UsageIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const entry of increments) {
        await tx.run(
          `INSERT INTO model_usage (account_id, day, model, requests, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id, day, model) DO UPDATE SET requests = model_usage.requests + excluded.requests,
             prompt_tokens = model_usage.prompt_tokens + excluded.prompt_tokens,
             completion_tokens = model_usage.completion_tokens + excluded.completion_tokens`,
          [entry.accountId, entry.day, entry.model, entry.requests, entry.prompt, entry.completion],
        );
      }
    });
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
 * Calls are summed in memory and written as increments at most every `flushIntervalMs`, so a busy
 * gateway does one write per second per (account, day, model) instead of one per call, and processes
 * sharing a database add up instead of overwriting each other. A failed write keeps its increments for
 * the next one. Reads flush this process's calls first (other processes' last second may not be in yet);
 * `close()` flushes what is left.
 */
export class UsageStore {
  private readonly repository: UsageRepository;
  private readonly pending = new Map<string, UsageIncrement>();
  private readonly flushIntervalMs: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;

  constructor(db: SqlClient | UsageRepository, options: UsageStoreOptions = {}) {
    this.repository = 'add' in db ? db : new SqlUsageRepository(db);
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.log = options.log ?? silentLogger;
  }

  record(accountId: string | undefined, model: string, promptTokens: number, completionTokens: number, at = new Date()): void {
    this.merge({
      accountId: accountId ?? '',
      day: at.toISOString().slice(0, 10),
      model,
      requests: 1,
      prompt: Math.max(0, Math.round(promptTokens) || 0),
      completion: Math.max(0, Math.round(completionTokens) || 0),
    });
    this.schedule();
  }

  /** Writes the calls recorded in memory; on failure they stay pending for the next flush. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    try {
      await this.repository.add(entries);
    } catch (error) {
      for (const entry of entries) this.merge(entry);
      this.schedule();
      throw error;
    }
  }

  async list(accountId: string, query: UsageQuery = {}): Promise<UsageRow[]> {
    await this.flush();
    return this.repository.list(accountId, query);
  }

  close(): Promise<void> {
    return this.flush();
  }

  private merge(increment: UsageIncrement): void {
    const key = `${increment.accountId}\u0000${increment.day}\u0000${increment.model}`;
    const entry = this.pending.get(key);
    if (!entry) {
      this.pending.set(key, { ...increment });
      return;
    }
    entry.requests += increment.requests;
    entry.prompt += increment.prompt;
    entry.completion += increment.completion;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(
      () =>
        void this.flush().catch((error: Error) =>
          this.log.warn(`models: could not write usage counts (kept for the next write): ${error.message}`),
        ),
      this.flushIntervalMs,
    );
    this.timer.unref();
  }
}
