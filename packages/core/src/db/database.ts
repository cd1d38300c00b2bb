import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Database = BetterSqlite3.Database;

/**
 * The schema of one capability: numbered migrations applied in order, once.
 * A migration is SQL text or a function for changes SQL alone cannot express.
 */
export interface Schema {
  /** Capability name, e.g. `documents`; versions are counted per component. */
  readonly component: string;
  readonly migrations: ReadonlyArray<string | ((db: Database) => void)>;
}

export interface OpenDatabaseOptions {
  /** File path, or `:memory:` (the default, for tests). */
  location?: string;
  /** Schemas to migrate, in dependency order. */
  schemas?: readonly Schema[];
}

/** Opens SQLite with WAL, `synchronous = NORMAL`, foreign keys on, and applies pending migrations. */
export function openDatabase(options: OpenDatabaseOptions = {}): Database {
  const location = options.location ?? ':memory:';
  if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
  const db = new BetterSqlite3(location);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, options.schemas ?? []);
  return db;
}

/** Applies the migrations of each schema that have not run yet, each in its own transaction. */
export function migrate(db: Database, schemas: readonly Schema[]): void {
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
    const done = current.get(schema.component)?.version ?? 0;
    schema.migrations.forEach((migration, index) => {
      const version = index + 1;
      if (version <= done) return;
      db.transaction(() => {
        if (typeof migration === 'string') db.exec(migration);
        else migration(db);
        record.run(schema.component, version, Date.now());
      })();
    });
  }
}
