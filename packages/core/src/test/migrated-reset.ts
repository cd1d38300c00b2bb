import { PostgresDatabase, type Schema } from '../storage';

/** Runs SQL on a test PostgreSQL outside any Fathom pool (PGlite's own session, or a client of the database). */
export interface RawSql {
  exec(sql: string): Promise<void>;
  rows<Row>(sql: string): Promise<Row[]>;
}

/** What a database holds: the things a reset compares. */
interface Shape {
  /** Every column of every table, with its type, default and nullability. */
  columns: string;
  /** Every index's definition, by name. */
  indexes: Map<string, string>;
  /** The `schema_migrations` rows. */
  migrations: string;
  tables: string[];
}

/** The shape of a database right after `schemas` (`key`) were migrated into an empty one. */
interface MigratedState extends Shape {
  key: string;
  /** Tables the migrations left rows in: their rows are kept in `fathom_test_seed` and copied back. */
  seeded: string[];
}

const SEED_SCHEMA = 'fathom_test_seed';

/**
 * Resets a test database to "just migrated with these schemas". The first time (or whenever the database is no
 * longer the same shape) it drops everything, migrates and remembers the result; later, while the tables, columns
 * and migrations are still the ones it remembers, it only empties the tables (`TRUNCATE … RESTART IDENTITY`), drops
 * the indexes made since (pgvector's HNSW index per vector size is made on first use) and puts back any rows the
 * migrations wrote. On PGlite that is ~20-50 ms instead of ~500 ms of dropping and migrating again: the http suites
 * on PostgreSQL start a fresh Fathom hundreds of times per run. A database that changed shape (a test that added a
 * table or ran other migrations) gets the full drop and migration, so every reset still ends in the same state.
 */
export class MigratedReset {
  private state?: MigratedState;

  constructor(
    private readonly sql: RawSql,
    private readonly url: () => string,
  ) {}

  /** The schemas the database was last migrated with by this reset (to pick a server that needs no migration). */
  get key(): string | undefined {
    return this.state?.key;
  }

  /** Drops every table (and what the migrations made): an empty database. */
  async drop(): Promise<void> {
    this.state = undefined;
    await this.sql.exec(`DROP SCHEMA IF EXISTS ${SEED_SCHEMA} CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
  }

  /** The database as `schemas` leave an empty one; nothing may be connected and busy meanwhile. */
  async reset(schemas: readonly Schema[]): Promise<void> {
    const key = schemaKey(schemas);
    const state = this.state;
    if (state?.key === key) {
      const shape = await readShape(this.sql);
      if (
        shape.columns === state.columns &&
        shape.migrations === state.migrations &&
        [...state.indexes].every(([name, definition]) => shape.indexes.get(name) === definition)
      ) {
        await this.empty(state, shape);
        return;
      }
    }
    await this.drop();
    const database = await PostgresDatabase.open({ url: this.url(), schemas, poolSize: 1 });
    await database.close();
    const shape = await readShape(this.sql);
    const seeded: string[] = [];
    for (const table of shape.tables) {
      if (table === 'schema_migrations') continue;
      const [row] = await this.sql.rows<{ present: boolean }>(`SELECT EXISTS (SELECT 1 FROM public.${quote(table)}) AS present`);
      if (row?.present) seeded.push(table);
    }
    if (seeded.length > 0) {
      await this.sql.exec(
        [
          `CREATE SCHEMA ${SEED_SCHEMA}`,
          ...seeded.map((table) => `CREATE TABLE ${SEED_SCHEMA}.${quote(table)} AS TABLE public.${quote(table)}`),
        ].join(';'),
      );
    }
    this.state = { ...shape, key, seeded };
  }

  private async empty(state: MigratedState, shape: Shape): Promise<void> {
    const statements = [...shape.indexes.keys()]
      .filter((name) => !state.indexes.has(name))
      .map((name) => `DROP INDEX public.${quote(name)}`);
    const tables = shape.tables.filter((table) => table !== 'schema_migrations');
    if (tables.length > 0)
      statements.push(`TRUNCATE ${tables.map((table) => `public.${quote(table)}`).join(', ')} RESTART IDENTITY CASCADE`);
    for (const table of state.seeded) statements.push(`INSERT INTO public.${quote(table)} SELECT * FROM ${SEED_SCHEMA}.${quote(table)}`);
    if (statements.length > 0) await this.sql.exec(statements.join(';'));
  }
}

export function schemaKey(schemas: readonly Schema[]): string {
  return schemas.map((schema) => `${schema.component}#${schema.postgres.length}`).join(',');
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function readShape(sql: RawSql): Promise<Shape> {
  const [row] = await sql.rows<{ columns: string | null; indexes: string | null; tables: string | null }>(
    `SELECT
       (SELECT string_agg(c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull || ':' ||
                          coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY c.relname, a.attnum)
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
          LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')) AS columns,
       (SELECT string_agg(indexname || E'\\t' || indexdef, E'\\n' ORDER BY indexname) FROM pg_indexes WHERE schemaname = 'public') AS indexes,
       (SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public') AS tables`,
  );
  const tables = row?.tables ? row.tables.split(',') : [];
  const [migrations] = tables.includes('schema_migrations')
    ? await sql.rows<{ migrations: string | null }>(
        `SELECT string_agg(component || '#' || version, ',' ORDER BY component, version) AS migrations FROM public.schema_migrations`,
      )
    : [];
  const indexes = new Map<string, string>();
  for (const line of (row?.indexes ?? '').split('\n')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    indexes.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return {
    columns: row?.columns ?? '',
    indexes,
    migrations: migrations?.migrations ?? '',
    tables,
  };
}
