import { silentLogger, type Logger } from '../internal/logger';
import type { SqlClient } from '../storage';

/**
 * A table of counters: each row is named by its key columns (its primary key) and its count columns only
 * ever grow, by increments that add up (several processes may add to one row at once).
 */
export interface CounterTable<Key extends string, Count extends string> {
  table: string;
  keys: readonly Key[];
  counts: readonly Count[];
}

/** One increment of a counter table: the row's key values and what to add to its counts. */
export type CounterRow<Key extends string, Count extends string> = Record<Key, string | number> & Record<Count, number>;

/** Adds increments to their rows in one transaction: one upsert per row, the same SQL on SQLite and PostgreSQL. */
export async function addCounters<Key extends string, Count extends string>(
  db: SqlClient,
  table: CounterTable<Key, Count>,
  rows: readonly CounterRow<Key, Count>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = [...table.keys, ...table.counts];
  const sql = `INSERT INTO ${table.table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
    ON CONFLICT (${table.keys.join(', ')}) DO UPDATE SET ${table.counts.map((count) => `${count} = ${table.table}.${count} + excluded.${count}`).join(', ')}`;
  await db.transaction(async (tx) => {
    for (const row of rows)
      await tx.run(
        sql,
        columns.map((column) => row[column as Key & Count]),
      );
  });
}

export interface BufferedCountersOptions {
  /** Longest time a recorded increment waits in memory before it is written, ms; default 1000. */
  flushIntervalMs?: number;
  /** Where failed background writes are reported; default silent. */
  log?: Logger;
  /** What the counts are, for that report (`usage counts`, `call latencies`). */
  what: string;
}

/**
 * The writer of a counter table: increments are summed in memory per row and written at most every
 * `flushIntervalMs`, so a busy gateway does one write per second per row instead of one per call. A failed
 * write keeps its increments for the next one; `flush()` writes now (readers call it first, so they see
 * this process's counts; other processes' last second may not be in yet); `close()` flushes what is left.
 */
export class BufferedCounters<Key extends string, Count extends string> {
  readonly #table: CounterTable<Key, Count>;
  readonly #write: (rows: readonly CounterRow<Key, Count>[]) => Promise<void>;
  readonly #pending = new Map<string, CounterRow<Key, Count>>();
  readonly #flushIntervalMs: number;
  readonly #log: Logger;
  readonly #what: string;
  #timer: NodeJS.Timeout | undefined;

  /** `write` defaults to the upsert of `addCounters` on `db`; a repository may bring its own. */
  constructor(
    table: CounterTable<Key, Count>,
    write: SqlClient | ((rows: readonly CounterRow<Key, Count>[]) => Promise<void>),
    options: BufferedCountersOptions,
  ) {
    this.#table = table;
    this.#write = typeof write === 'function' ? write : (rows) => addCounters(write, table, rows);
    this.#flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.#log = options.log ?? silentLogger;
    this.#what = options.what;
  }

  /** Adds `row`'s counts to its row (written on the timer). */
  add(row: CounterRow<Key, Count>): void {
    this.#merge(row);
    this.#schedule();
  }

  /** Writes the increments held in memory; on failure they stay pending for the next flush. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const rows = [...this.#pending.values()];
    this.#pending.clear();
    try {
      await this.#write(rows);
    } catch (error) {
      for (const row of rows) this.#merge(row);
      this.#schedule();
      throw error;
    }
  }

  close(): Promise<void> {
    return this.flush();
  }

  #merge(row: CounterRow<Key, Count>): void {
    const name = JSON.stringify(this.#table.keys.map((key) => row[key]));
    const entry = this.#pending.get(name);
    if (!entry) {
      this.#pending.set(name, { ...row });
      return;
    }
    const counts = entry as Record<Count, number>;
    for (const count of this.#table.counts) counts[count] += row[count];
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(
      () =>
        void this.flush().catch((error: Error) =>
          this.#log.warn(`models: could not write ${this.#what} (kept for the next write): ${error.message}`),
        ),
      this.#flushIntervalMs,
    );
    this.#timer.unref();
  }
}
