import type BetterSqlite3 from 'better-sqlite3';
import { type Schema, SqliteDatabase } from '../storage';

/**
 * The raw SQLite driver, for the capabilities that have not moved onto the async storage seam
 * (`storage/`) yet. They run only on the SQLite backend.
 */
export type Database = BetterSqlite3.Database;
export type { Schema };

/** An in-memory (or file) SQLite database migrated with `schemas`, as the raw driver. */
export function openDatabase(options: { location?: string; schemas?: readonly Schema[] } = {}): Database {
  return new SqliteDatabase(options).raw;
}
