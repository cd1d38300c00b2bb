import { PostgresDatabase } from './postgres-database';
import type { Schema } from './schema';
import type { SqlDatabase } from './sql-client';
import { SqliteDatabase } from './sqlite-database';

export interface OpenDatabaseOptions {
  /** `postgres://…` keeps everything in PostgreSQL (`FATHOM_DATABASE_URL`); unset = SQLite at `location`. */
  url?: string;
  /** SQLite file, or `:memory:` (the default). */
  location?: string;
  /** Schemas to migrate, in dependency order. */
  schemas?: readonly Schema[];
  /** PostgreSQL pool size; default 10. */
  poolSize?: number;
}

/** Opens (and migrates) the database the settings choose: PostgreSQL for a `postgres://` URL, else SQLite. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<SqlDatabase> {
  if (options.url) {
    if (!/^postgres(ql)?:\/\//i.test(options.url)) {
      throw new Error(`FATHOM_DATABASE_URL must be a postgres:// or postgresql:// URL, got '${options.url.split('@').pop()}'.`);
    }
    return PostgresDatabase.open({ url: options.url, schemas: options.schemas, poolSize: options.poolSize });
  }
  return new SqliteDatabase({ location: options.location, schemas: options.schemas });
}
