import type { Database, Schema } from '../db';
import type { UsageRow } from './types';

/** Token usage per account, UTC day and model (one upserted row per combination). */
export const modelsSchema: Schema = {
  component: 'models',
  migrations: [
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

/** Records every model call's tokens for the calling account; calls with no account are kept under ''. */
export class UsageStore {
  private readonly upsert;
  private readonly select;

  constructor(db: Database) {
    this.upsert = db.prepare(
      `INSERT INTO model_usage (account_id, day, model, requests, prompt_tokens, completion_tokens) VALUES (?, ?, ?, 1, ?, ?)
       ON CONFLICT (account_id, day, model) DO UPDATE SET requests = requests + 1,
         prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens`,
    );
    this.select = db.prepare<[string, string, string, string | null, string | null], Omit<UsageRow, 'total_tokens'>>(
      `SELECT day AS date, model, requests, prompt_tokens, completion_tokens FROM model_usage
       WHERE account_id = ? AND day >= ? AND day <= ? AND (? IS NULL OR model = ?) ORDER BY day, model`,
    );
  }

  record(accountId: string | undefined, model: string, promptTokens: number, completionTokens: number, at = new Date()): void {
    this.upsert.run(accountId ?? '', at.toISOString().slice(0, 10), model, Math.max(0, Math.round(promptTokens)), Math.max(0, Math.round(completionTokens)));
  }

  list(accountId: string, query: UsageQuery = {}): UsageRow[] {
    const model = query.model ?? null;
    return this.select
      .all(accountId, query.startDate ?? '0000-00-00', query.endDate ?? '9999-99-99', model, model)
      .map((row) => ({ ...row, total_tokens: row.prompt_tokens + row.completion_tokens }));
  }
}
