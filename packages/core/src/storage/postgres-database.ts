import type pg from 'pg';
import { numberPlaceholders } from './placeholders';
import type { Schema } from './schema';
import type { RunResult, SqlClient, SqlDatabase } from './sql-client';

export interface PostgresDatabaseOptions {
  /** `postgres://user:password@host:port/database` (`FATHOM_DATABASE_URL`). */
  url: string;
  /** Schemas to migrate, in dependency order. */
  schemas?: readonly Schema[];
  /** Connections in the pool; default 10 (`FATHOM_DATABASE_POOL_SIZE`). */
  poolSize?: number;
}

/** Key of the advisory lock migrations run under, so nodes starting together migrate one at a time. */
const MIGRATION_LOCK = 7_261_554_208;

// BIGINT (20) and NUMERIC (1700, what SUM over BIGINT returns) as JavaScript numbers, like SQLite gives them.
const toNumber = (value: string) => Number(value);
const typesOf = (driver: typeof pg) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700 ? toNumber : driver.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
});

/**
 * PostgreSQL through a `pg` pool, behind the async `SqlClient`. `?` placeholders are numbered once per
 * statement text; a transaction holds one pooled connection from BEGIN to COMMIT.
 */
export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly location: string;
  readonly pool: pg.Pool;

  private constructor(driver: typeof pg, options: PostgresDatabaseOptions) {
    this.location = redact(options.url);
    this.pool = new driver.Pool({ connectionString: options.url, max: options.poolSize ?? 10, types: typesOf(driver) });
    // An idle connection that dies (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  /** Connects, makes sure pgvector is there, and applies pending migrations under an advisory lock. */
  static async open(options: PostgresDatabaseOptions): Promise<PostgresDatabase> {
    // The driver loads with the first PostgreSQL database: a SQLite process (the default, every embedded CLI
    // command) never loads it.
    const { default: driver } = await import('pg');
    const database = new PostgresDatabase(driver, options);
    try {
      await migratePostgres(database.pool, options.schemas ?? [], database.location);
    } catch (error) {
      await database.pool.end().catch(() => {});
      throw error;
    }
    return database;
  }

  all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
    return query<Row>(this.pool, sql, params).then((result) => result.rows);
  }

  get<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined> {
    return query<Row>(this.pool, sql, params).then((result) => result.rows[0]);
  }

  run(sql: string, params?: readonly unknown[]): Promise<RunResult> {
    return query(this.pool, sql, params).then((result) => ({ changes: result.rowCount ?? 0 }));
  }

  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    const connection = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await connection.query('BEGIN');
      const tx: SqlClient = {
        dialect: 'postgres',
        all: <Row>(sql: string, params?: readonly unknown[]) => query<Row>(connection, sql, params).then((result) => result.rows),
        get: <Row>(sql: string, params?: readonly unknown[]) => query<Row>(connection, sql, params).then((result) => result.rows[0]),
        run: (sql, params) => query(connection, sql, params).then((result) => ({ changes: result.rowCount ?? 0 })),
        transaction: (inner) => inner(tx),
      };
      try {
        const result = await fn(tx);
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      }
    } finally {
      connection.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function query<Row>(target: pg.Pool | pg.PoolClient, sql: string, params: readonly unknown[] = []) {
  return target.query<Row & pg.QueryResultRow>(numberPlaceholders(sql), params.map(bindable));
}

/**
 * Booleans are stored as 0/1 integers in both dialects; undefined means NULL. PostgreSQL text cannot
 * hold U+0000, so a NUL in a string parameter becomes U+FFFD: an id with a NUL then simply matches
 * nothing (404, as on SQLite) and stored text keeps a visible replacement instead of failing the request.
 */
function bindable(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.includes('\u0000')) return value.replaceAll('\u0000', '\uFFFD');
  return value === undefined ? null : value;
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}

/**
 * Creates the pgvector extension (or explains that it is missing), then applies each schema's pending
 * PostgreSQL migrations, each in its own transaction, holding an advisory lock for the whole run.
 */
export async function migratePostgres(pool: pg.Pool, schemas: readonly Schema[], location: string): Promise<void> {
  let connection: pg.PoolClient;
  try {
    connection = await pool.connect();
  } catch (error) {
    throw new Error(`FATHOM_DATABASE_URL: cannot connect to ${location}: ${(error as Error).message}`);
  }
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await connection.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (error) {
      throw new Error(
        `FATHOM_DATABASE_URL: the PostgreSQL server at ${location} has no pgvector extension ` +
          `('CREATE EXTENSION vector' failed: ${(error as Error).message}). Install pgvector on the server ` +
          '(https://github.com/pgvector/pgvector, packaged as postgresql-<version>-pgvector) or use a managed PostgreSQL that offers it.',
      );
    }
    await connection.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      component TEXT NOT NULL,
      version INTEGER NOT NULL,
      applied_at BIGINT NOT NULL,
      PRIMARY KEY (component, version)
    )`);
    for (const schema of schemas) {
      const { rows } = await connection.query<{ version: number | null }>(
        'SELECT MAX(version) AS version FROM schema_migrations WHERE component = $1',
        [schema.component],
      );
      const done = rows[0]?.version ?? 0;
      for (let index = done; index < schema.postgres.length; index++) {
        await connection.query('BEGIN');
        try {
          await connection.query(schema.postgres[index]!);
          await connection.query('INSERT INTO schema_migrations (component, version, applied_at) VALUES ($1, $2, $3)', [
            schema.component,
            index + 1,
            Date.now(),
          ]);
          await connection.query('COMMIT');
        } catch (error) {
          await connection.query('ROLLBACK').catch(() => {});
          throw new Error(`migration ${schema.component} #${index + 1} failed: ${(error as Error).message}`);
        }
      }
    }
  } finally {
    await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    connection.release();
  }
}
