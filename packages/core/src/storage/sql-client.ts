/** The two SQL backends: SQLite under the data dir (default), or PostgreSQL with pgvector (`FATHOM_DATABASE_URL`). */
export type Dialect = 'sqlite' | 'postgres';

export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

/**
 * What repositories talk to: one async SQL surface over SQLite or PostgreSQL. Statements use `?`
 * placeholders in both dialects (the PostgreSQL client numbers them). Integer columns come back as
 * JavaScript numbers in both (BIGINT and NUMERIC included), text as strings, blobs as Buffers.
 *
 * A transaction is a client too: `transaction(async (tx) => …)` runs the callback on one connection
 * between BEGIN and COMMIT (ROLLBACK when it throws). Repositories bound to `tx` (`repository.in(tx)`)
 * take part in it; a `transaction` call on a transaction client joins the outer one. Inside the
 * callback, use only `tx`: a statement on the outer client waits for the transaction to end.
 */
export interface SqlClient {
  readonly dialect: Dialect;
  all<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  get<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row | undefined>;
  run(sql: string, params?: readonly unknown[]): Promise<RunResult>;
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
}

/** A database: a client plus its lifetime. Opened once by the composition root (`Fathom.open`). */
export interface SqlDatabase extends SqlClient {
  /** Where the data lives, for logs (`sqlite:/path/fathom.db`, `postgres://host/db` without password). */
  readonly location: string;
  close(): Promise<void>;
}

/** A repository bound to the outer client or to a transaction; `in(tx)` gives the same repository inside `tx`. */
export interface Repository<Self> {
  in(tx: SqlClient): Self;
}
