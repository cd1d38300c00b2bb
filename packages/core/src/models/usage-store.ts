import type { Database, Schema } from '../db';
import type { UsageRow } from './types';

/** Token usage per account, UTC day and model (one upserted row per combination). */
export const modelsSchema: Schema = {
  component: 'models',
  postgres: [],
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
};

export interface UsageQuery {
  /** First day included, `YYYY-MM-DD`. */
  startDate?: string;
  /** Last day included, `YYYY-MM-DD`. */
  endDate?: string;
  model?: string;
}

export interface UsageStoreOptions {
  /** Longest time a recorded call waits in memory before it is written, ms; default 1000. */
  flushIntervalMs?: number;
}

interface Pending {
  accountId: string;
  day: string;
  model: string;
  requests: number;
  prompt: number;
  completion: number;
}

/**
 * Records every model call's tokens for the calling account (calls with no account are kept under '').
 * Calls are summed in memory and written in one transaction at most every `flushIntervalMs`, so a
 * busy gateway does one SQLite write per second per (account, day, model) instead of one per call.
 * Reads flush first; `close()` flushes what is left.
 */
export class UsageStore {
  private readonly db: Database;
  private readonly upsert;
  private readonly select;
  private readonly pending = new Map<string, Pending>();
  private readonly flushIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(db: Database, options: UsageStoreOptions = {}) {
    this.db = db;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.upsert = db.prepare<[string, string, string, number, number, number]>(
      `INSERT INTO model_usage (account_id, day, model, requests, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, day, model) DO UPDATE SET requests = requests + excluded.requests,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens`,
    );
    this.select = db.prepare<[string, string, string, string | null, string | null], Omit<UsageRow, 'total_tokens'>>(
      `SELECT day AS date, model, requests, prompt_tokens, completion_tokens FROM model_usage
       WHERE account_id = ? AND day >= ? AND day <= ? AND (? IS NULL OR model = ?) ORDER BY day, model`,
    );
  }

  record(accountId: string | undefined, model: string, promptTokens: number, completionTokens: number, at = new Date()): void {
    const account = accountId ?? '';
    const day = at.toISOString().slice(0, 10);
    const key = `${account}\u0000${day}\u0000${model}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { accountId: account, day, model, requests: 0, prompt: 0, completion: 0 };
      this.pending.set(key, entry);
    }
    entry.requests++;
    entry.prompt += Math.max(0, Math.round(promptTokens) || 0);
    entry.completion += Math.max(0, Math.round(completionTokens) || 0);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.flushIntervalMs);
      this.timer.unref();
    }
  }

  /** Writes the calls recorded in memory. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 || !this.db.open) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    this.db.transaction(() => {
      for (const entry of entries) this.upsert.run(entry.accountId, entry.day, entry.model, entry.requests, entry.prompt, entry.completion);
    })();
  }

  list(accountId: string, query: UsageQuery = {}): UsageRow[] {
    this.flush();
    const model = query.model ?? null;
    return this.select
      .all(accountId, query.startDate ?? '0000-00-00', query.endDate ?? '9999-99-99', model, model)
      .map((row) => ({ ...row, total_tokens: row.prompt_tokens + row.completion_tokens }));
  }

  close(): void {
    this.flush();
  }
}
