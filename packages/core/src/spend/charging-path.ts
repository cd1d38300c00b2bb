import type { Accounts, PendingMoney } from '../accounts';
import type { Logger } from '../internal/logger';
import { type SqlClient, SqliteDatabase, type SqlDatabase } from '../storage';
import { BookedHolds } from './booked-holds';
import { DurableHolds, type ModelCallHolds } from './model-holds';
import type { ModelCallsRepository } from './model-calls-repository';
import { BookedRateWindows, type RateWindows, SqlRateWindows } from './rate-windows';
import { SpendBook } from './spend-book';
import { readsAfter, WriteBehind } from './write-behind';

/**
 * How charging reaches the database, chosen here once by backend
 * (`docs/decisions/2026-11-26-spend-holds-in-process.md`):
 * - SQLite (one `fathom serve` process per data dir): holds and rate-limit windows decided in process
 *   from the persisted rows plus a book of what is not yet written, written behind the answers;
 * - PostgreSQL (processes share it): every hold and window count committed before the upstream call.
 */
export interface ChargingPath {
  /** Money held in process and not yet written: `Accounts` leaves it untouched (data-tool reservations included). */
  pending?: PendingMoney;
  /**
   * The client every reader of money uses (balances, the ledger, keys' spend, model calls: accounts,
   * admin, usage, the sweep): on SQLite each read first writes what is queued, so it sees every answered
   * call; on PostgreSQL the database itself (nothing is queued).
   */
  reads: SqlClient;
  windows(): RateWindows;
  holds(accounts: Accounts, repository: ModelCallsRepository): ModelCallHolds;
  /** Writes what is queued (shutdown: before the database closes). */
  drain(): Promise<void>;
}

/** `shareMs`: how long a call's write waits to share a commit (default `SHARE_COMMIT_MS`; tests lengthen it). */
export function chargingPathOf(db: SqlDatabase, log: Logger, options: { shareMs?: number } = {}): ChargingPath {
  if (db instanceof SqliteDatabase) {
    const book = new SpendBook(db);
    const writes = new WriteBehind(db, { log, shareMs: options.shareMs });
    return {
      pending: book,
      reads: readsAfter(db, writes),
      windows: () => new BookedRateWindows(book, writes),
      holds: (accounts, repository) => new BookedHolds(accounts, repository, book, writes, log),
      drain: () => writes.drain(),
    };
  }
  return {
    reads: db,
    windows: () => new SqlRateWindows(db),
    holds: (accounts, repository) => new DurableHolds(db, accounts, repository),
    drain: async () => {},
  };
}
