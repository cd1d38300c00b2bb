import type BetterSqlite3 from 'better-sqlite3';

/** A migration of the SQLite database: SQL text, or a function for changes SQL alone cannot express. */
export type SqliteMigration = string | ((db: BetterSqlite3.Database) => void);

/**
 * The tables of one capability in both dialects: numbered migrations applied in order, once, and
 * recorded per component in `schema_migrations`. The two lists are separate histories: SQLite keeps
 * the migrations existing data dirs went through; PostgreSQL starts from the current shape.
 */
export interface Schema {
  /** Capability name, e.g. `documents`; versions are counted per component. */
  readonly component: string;
  readonly sqlite: readonly SqliteMigration[];
  readonly postgres: readonly string[];
}
