import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Schema } from './schema';
import type { RunResult, SqlClient, SqlDatabase } from './sql-client';
import { Turnstile } from './turnstile';

export interface SqliteDatabaseOptions {
  /** File path, or `:memory:` (the default, for tests). */
  location?: string;
  /** Schemas to migrate, in dependency order. */
  schemas?: readonly Schema[];
  /**
   * SQLite's page cache of this connection, in bytes; default 64 MiB for a file (SQLite's own default is
   * 2 MB). It is a ceiling: pages are cached as they are read. A search of a large store reads FTS5
   * postings and chunk rows spread over a multi-GB file: at 1M chunks, 64 MiB took the keyword side's p99
   * from ~8.1 to 5.8-7.6 ms (decision 2026-11-27-sqlite-page-cache). Memory databases keep SQLite's default.
   */
  cacheBytes?: number;
}

/** The page cache of a file database's main connection (see `cacheBytes`). */
export const DEFAULT_SQLITE_CACHE_BYTES = 64 * 2 ** 20;

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/**
 * SQLite through better-sqlite3 (WAL, `synchronous = NORMAL`, foreign keys, 5 s busy timeout, a 64 MiB
 * page cache for a file), behind the async `SqlClient`. Statements are prepared once per text.
 * better-sqlite3 runs each statement synchronously, so a transaction is the only thing that spans awaits:
 * while one is open, statements from outside it wait their turn (FIFO), and transactions run one at a time
 * (`BEGIN IMMEDIATE`, so a second process on the same file waits for the write lock instead of failing
 * half-way).
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  readonly location: string;
  /** The driver, for the SQLite-only parts (the FTS5/HNSW vector index) and migrations. */
  readonly raw: BetterSqlite3.Database;
  readonly #statements = new Map<string, Statement>();
  readonly #turnstile = new Turnstile();
  readonly #inTransaction: SqlClient;

  constructor(options: SqliteDatabaseOptions = {}) {
    const location = options.location ?? ':memory:';
    if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
    this.location = `sqlite:${location}`;
    this.raw = new BetterSqlite3(location);
    this.raw.pragma('journal_mode = WAL');
    this.raw.pragma('synchronous = NORMAL');
    this.raw.pragma('foreign_keys = ON');
    this.raw.pragma('busy_timeout = 5000');
    // A negative cache_size is in KiB.
    if (location !== ':memory:') this.raw.pragma(`cache_size = -${Math.round((options.cacheBytes ?? DEFAULT_SQLITE_CACHE_BYTES) / 1024)}`);
    migrateSqlite(this.raw, options.schemas ?? []);
    this.#inTransaction = {
      dialect: 'sqlite',
      all: async (sql, params) => this.#all(sql, params),
      get: async (sql, params) => this.#get(sql, params),
      run: async (sql, params) => this.#run(sql, params),
      transaction: (fn) => fn(this.#inTransaction),
    };
  }

  /** The cached prepared statement for `sql` (also for the SQLite-only repositories). */
  prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.raw.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    if (this.#turnstile.busy) return this.#afterTransactions(() => this.#all<Row>(sql, params));
    return this.#all<Row>(sql, params);
  }

  async get<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined> {
    if (this.#turnstile.busy) return this.#afterTransactions(() => this.#get<Row>(sql, params));
    return this.#get<Row>(sql, params);
  }

  async run(sql: string, params?: readonly unknown[]): Promise<RunResult> {
    if (this.#turnstile.busy) return this.#afterTransactions(() => this.#run(sql, params));
    return this.#run(sql, params);
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const release = await this.#turnstile.acquire();
    try {
      this.prepare('BEGIN IMMEDIATE').run();
      try {
        const result = await fn(this.#inTransaction);
        this.prepare('COMMIT').run();
        return result;
      } catch (error) {
        if (this.raw.inTransaction) this.prepare('ROLLBACK').run();
        throw error;
      }
    } finally {
      release();
    }
  }

  /**
   * Runs `fn` synchronously inside one transaction, for the SQLite-only parts that never await inside
   * (it still waits for any async transaction in progress to end first).
   */
  async immediate<T>(fn: () => T): Promise<T> {
    const release = await this.#turnstile.acquire();
    try {
      return this.raw.transaction(fn).immediate();
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    const release = await this.#turnstile.acquire();
    try {
      if (this.raw.open) this.raw.close();
    } finally {
      release();
    }
  }

  async #afterTransactions<T>(fn: () => T): Promise<T> {
    const release = await this.#turnstile.acquire();
    try {
      return fn();
    } finally {
      release();
    }
  }

  #all<Row>(sql: string, params: readonly unknown[] = []): Row[] {
    return this.prepare(sql).all(...bindable(params)) as Row[];
  }

  #get<Row>(sql: string, params: readonly unknown[] = []): Row | undefined {
    return this.prepare(sql).get(...bindable(params)) as Row | undefined;
  }

  #run(sql: string, params: readonly unknown[] = []): RunResult {
    return { changes: this.prepare(sql).run(...bindable(params)).changes };
  }
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null: booleans become 1/0, undefined null. */
function bindable(params: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (typeof value === 'boolean' || value === undefined) {
      out ??= [...params];
      out[i] = value === undefined ? null : value ? 1 : 0;
    }
  }
  return out ?? (params as unknown[]);
}

/**
 * Applies the SQLite migrations of each schema that have not run yet, each in its own immediate
 * transaction that re-reads the version first, so two processes starting on one file apply each once.
 */
export function migrateSqlite(db: BetterSqlite3.Database, schemas: readonly Schema[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    component TEXT NOT NULL,
    version INTEGER NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (component, version)
  )`);
  const current = db.prepare<[string], { version: number | null }>(
    'SELECT MAX(version) AS version FROM schema_migrations WHERE component = ?',
  );
  const record = db.prepare('INSERT INTO schema_migrations (component, version, applied_at) VALUES (?, ?, ?)');
  for (const schema of schemas) {
    if ((current.get(schema.component)?.version ?? 0) >= schema.sqlite.length) continue;
    schema.sqlite.forEach((migration, index) => {
      const version = index + 1;
      db.transaction(() => {
        if ((current.get(schema.component)?.version ?? 0) >= version) return;
        if (typeof migration === 'string') db.exec(migration);
        else migration(db);
        record.run(schema.component, version, Date.now());
      }).immediate();
    });
  }
}
