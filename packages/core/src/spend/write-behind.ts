import { type Logger, silentLogger } from '../internal/logger';
import type { SqlClient, SqlDatabase } from '../storage';

/**
 * How long a call's write waits for others to share its commit (ms): under load several answered calls go
 * in one transaction, and a sequential client's next request no longer waits for the previous call's commit.
 * A SIGKILL loses at most this long of answered quick calls (`docs/decisions/2026-11-26-spend-holds-in-process.md`).
 */
export const SHARE_COMMIT_MS = 25;

/**
 * When a queued op is written: `now` at the next `setImmediate` (a hold to make durable), `shared` within
 * the sharing window (a call's write after its answer), `lazy` within `lazyMs` (a rate-limit window's count).
 */
export type WriteWhen = 'now' | 'shared' | 'lazy';

/** One write queued behind the requests: `done` hears whether it was committed. */
export interface WriteBehindOp {
  run(tx: SqlClient): Promise<unknown>;
  /**
   * The transaction `run` wrote in was rolled back (another op failed) and the op will run again: put back
   * what `run` changed in memory.
   */
  undo?(): void;
  done?(committed: boolean): void;
}

/**
 * The spend writes of SQLite, off the request path: queued, then written together in one transaction
 * (one commit for every op queued meanwhile). No savepoint per op: when one fails, the transaction is
 * rolled back, each op that ran `undo`es its in-memory effects, and the ops are written again, each in its
 * own savepoint, so the failing one does not undo the others. A hold to make durable is written at the next `setImmediate`; a call's write after
 * its answer waits up to `shareMs` (`SHARE_COMMIT_MS`) so the calls answered meanwhile share its commit; a
 * rate-limit window's count up to `lazyMs`. Every read of money goes through `readsAfter`, which writes
 * what is queued first, so no reader misses an answered call. `drain` writes everything: `close` waits for it.
 */
export class WriteBehind {
  readonly #db: SqlDatabase;
  readonly #log: Logger;
  readonly #lazyMs: number;
  readonly #shareMs: number;
  #queue: WriteBehindOp[] = [];
  #writing: Promise<void> | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #shared: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: SqlDatabase, options: { log?: Logger; lazyMs?: number; shareMs?: number } = {}) {
    this.#db = db;
    this.#log = options.log ?? silentLogger;
    this.#lazyMs = options.lazyMs ?? 100;
    this.#shareMs = options.shareMs ?? SHARE_COMMIT_MS;
  }

  /** Ops queued or being written. */
  get pending(): number {
    return this.#queue.length;
  }

  enqueue(op: WriteBehindOp, when: WriteWhen = 'now'): void {
    this.#queue.push(op);
    if (when === 'now') {
      this.#immediate ??= setImmediate(() => {
        this.#immediate = undefined;
        void this.flush();
      });
    } else if (when === 'shared') {
      this.#shared ??= setTimeout(() => {
        this.#shared = undefined;
        void this.flush();
      }, this.#shareMs);
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, this.#lazyMs);
      this.#timer.unref();
    }
  }

  /** Writes what is queued now (after a write in progress), in one transaction. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#queue.length === 0) return;
    const ops = this.#queue;
    this.#queue = [];
    this.#writing = this.#write(ops).finally(() => {
      this.#writing = undefined;
    });
    await this.#writing;
  }

  /** Writes everything queued, including what the writes queue meanwhile (shutdown). */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#writing) await this.flush();
  }

  async #write(ops: WriteBehindOp[]): Promise<void> {
    let outcomes: boolean[];
    try {
      outcomes = await this.#commit(ops, false);
    } catch (error) {
      this.#log.warn(`spend: a queued write failed, writing the ${ops.length} op(s) again one savepoint each: ${(error as Error).message}`);
      try {
        outcomes = await this.#commit(ops, true);
      } catch (again) {
        this.#log.error(`spend: could not commit ${ops.length} queued write(s): ${(again as Error).message}`);
        outcomes = ops.map(() => false);
      }
    }
    ops.forEach((op, i) => {
      try {
        op.done?.(outcomes[i] ?? false);
      } catch (error) {
        this.#log.warn(`spend: after a queued write: ${(error as Error).message}`);
      }
    });
  }

  /**
   * One transaction of `ops`. Not `isolated`: all or nothing (a failing op throws; the ops that ran are
   * undone in memory). `isolated`: each op in a savepoint, its outcome in the answer.
   */
  async #commit(ops: WriteBehindOp[], isolated: boolean): Promise<boolean[]> {
    const ran: WriteBehindOp[] = [];
    try {
      return await this.#db.transaction(async (tx) => {
        const outcomes: boolean[] = [];
        for (const op of ops) {
          if (!isolated) {
            ran.push(op);
            await op.run(tx);
            outcomes.push(true);
            continue;
          }
          await tx.run('SAVEPOINT spend_write');
          try {
            await op.run(tx);
            await tx.run('RELEASE spend_write');
            outcomes.push(true);
          } catch (error) {
            await tx.run('ROLLBACK TO spend_write');
            await tx.run('RELEASE spend_write');
            this.#log.warn(`spend: a queued write failed: ${(error as Error).message}`);
            outcomes.push(false);
          }
        }
        return outcomes;
      });
    } catch (error) {
      for (const op of ran.reverse()) op.undo?.();
      throw error;
    }
  }
}

/**
 * `db` for the readers of money (balances, the ledger, keys' spend, model calls): each read outside a
 * transaction first writes what `writes` has queued (after a write in progress), so it sees every call
 * answered before it. Writes and transactions go to `db` as they are (a read inside a transaction, such as
 * a queued op's, must not wait for the queue that runs it).
 */
export function readsAfter(db: SqlClient, writes: Pick<WriteBehind, 'flush'>): SqlClient {
  return {
    dialect: db.dialect,
    async all<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
      await writes.flush();
      return db.all<Row>(sql, params);
    },
    async get<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row | undefined> {
      await writes.flush();
      return db.get<Row>(sql, params);
    },
    run: (sql, params) => db.run(sql, params),
    transaction: (fn) => db.transaction(fn),
  };
}
