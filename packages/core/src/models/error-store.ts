import type { Logger } from '../internal/logger';
import type { Schema, SqlClient } from '../storage';
import { BufferedCounters, type CounterTable } from './buffered-counters';
import type { UsageErrorRow } from './wire/errors';

/**
 * Requests answered with an error (status 400–599), per account, UTC day, status and error code: one
 * upserted count per combination, so the table grows with days and codes, never with the requests.
 */
export const requestErrorsSchema: Schema = {
  component: 'request_errors',
  sqlite: [
    `CREATE TABLE request_errors (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      status INTEGER NOT NULL,
      code TEXT NOT NULL,
      requests INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, status, code)
    ) WITHOUT ROWID;`,
  ],
  postgres: [
    `CREATE TABLE request_errors (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      status INTEGER NOT NULL,
      code TEXT NOT NULL,
      requests BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, status, code)
    );`,
  ],
};

const ERROR_COUNTERS: CounterTable<'account_id' | 'day' | 'status' | 'code', 'requests'> = {
  table: 'request_errors',
  keys: ['account_id', 'day', 'status', 'code'],
  counts: ['requests'],
};

export interface ErrorQuery {
  /** First day included, `YYYY-MM-DD`. */
  startDate?: string;
  /** Last day included, `YYYY-MM-DD`. */
  endDate?: string;
}

/** Error codes are the API's own short names; anything longer is cut so one odd code cannot bloat the table. */
const MAX_CODE_LENGTH = 64;

/**
 * Counts an account's requests answered with an error, by UTC day, status and the error's `code`, for the
 * console's errors chart. Like `UsageStore`, counts are summed in memory and written as increments at most
 * every `flushIntervalMs` (`BufferedCounters`); reads flush this process's first.
 */
export class ErrorStore {
  private readonly db: SqlClient;
  private readonly counters: BufferedCounters<'account_id' | 'day' | 'status' | 'code', 'requests'>;

  constructor(db: SqlClient, options: { flushIntervalMs?: number; log?: Logger } = {}) {
    this.db = db;
    this.counters = new BufferedCounters(ERROR_COUNTERS, db, { ...options, what: 'error counts' });
  }

  /** One request of `accountId` answered with `status` (kept only for 400–599) and error `code` (null: none named). */
  record(accountId: string, status: number, code: string | null, at = new Date()): void {
    if (!Number.isInteger(status) || status < 400 || status > 599) return;
    this.counters.add({
      account_id: accountId,
      day: at.toISOString().slice(0, 10),
      status,
      code: (code ?? '').slice(0, MAX_CODE_LENGTH),
      requests: 1,
    });
  }

  flush(): Promise<void> {
    return this.counters.flush();
  }

  /** Counts per day, status and code, oldest day first. */
  async list(accountId: string, query: ErrorQuery = {}): Promise<UsageErrorRow[]> {
    await this.flush();
    const rows = await this.db.all<{ day: string; status: number; code: string; requests: number }>(
      `SELECT day, status, code, requests FROM request_errors WHERE account_id = ? AND day >= ? AND day <= ? ORDER BY day, status, code`,
      [accountId, query.startDate ?? '0000-00-00', query.endDate ?? '9999-99-99'],
    );
    return rows.map((row) => ({ date: row.day, status: Number(row.status), code: row.code || null, requests: Number(row.requests) }));
  }

  close(): Promise<void> {
    return this.counters.close();
  }
}
