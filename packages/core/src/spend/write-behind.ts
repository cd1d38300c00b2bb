import { type Logger, silentLogger } from '../internal/logger';
import type { SqlClient, SqlDatabase } from '../storage';

/** One write queued behind the requests: `done` hears whether it was committed. */
export interface WriteBehindOp {
  run(tx: SqlClient): Promise<unknown>;
  done?(committed: boolean): void;
}

/**
 * The spend writes of SQLite, off the request path: queued, then written together in one transaction
 * (one commit for every op queued meanwhile), each op in its own savepoint so one failing op does not
 * undo the others. An urgent op (a call's capture, a hold to make durable) is written at the next
 * `setImmediate`, after the answer that queued it has left; a lazy one (a rate-limit window's count)
 * waits up to `lazyMs` for a commit to share. `drain` writes everything queued: `close` waits for it.
 */
export class WriteBehind {
  readonly #db: SqlDatabase;
  readonly #log: Logger;
  readonly #lazyMs: number;
  #queue: WriteBehindOp[] = [];
  #writing: Promise<void> | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: SqlDatabase, options: { log?: Logger; lazyMs?: number } = {}) {
    this.#db = db;
    this.#log = options.log ?? silentLogger;
    this.#lazyMs = options.lazyMs ?? 100;
  }

  /** Ops queued or being written. */
  get pending(): number {
    return this.#queue.length;
  }

  enqueue(op: WriteBehindOp, urgent = true): void {
    this.#queue.push(op);
    if (urgent) {
      this.#immediate ??= setImmediate(() => {
        this.#immediate = undefined;
        void this.flush();
      });
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
    let outcomes: boolean[] = [];
    try {
      await this.#db.transaction(async (tx) => {
        outcomes = [];
        for (const op of ops) {
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
      });
    } catch (error) {
      this.#log.error(`spend: could not commit ${ops.length} queued write(s): ${(error as Error).message}`);
      outcomes = ops.map(() => false);
    }
    ops.forEach((op, i) => {
      try {
        op.done?.(outcomes[i] ?? false);
      } catch (error) {
        this.#log.warn(`spend: after a queued write: ${(error as Error).message}`);
      }
    });
  }
}
