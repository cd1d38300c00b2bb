import type { PostgresDatabase } from './postgres-database';
import type { SqliteDatabase } from './sqlite-database';

export interface TableCopy {
  table: string;
  /** Rows in the SQLite table. */
  source: number;
  /** Rows in the PostgreSQL table after the copy. */
  target: number;
}

const BATCH = 200;

/** Tables of the target, parents before the tables whose foreign keys point at them. */
async function tablesInDependencyOrder(target: PostgresDatabase): Promise<string[]> {
  const tables = (
    await target.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
  ).map((row) => row.name);
  const edges = await target.all<{ child: string; parent: string }>(
    `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE c.contype = 'f' AND n.nspname = current_schema()`,
  );
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const edge of edges) if (edge.child === table && edge.parent !== table) visit(edge.parent);
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}

/**
 * Copies every table the two databases share, row for row, columns they share, in SQLite's insertion
 * order (so PostgreSQL's `seq` keeps list order), parents first, in batches; rows already there are
 * kept (a re-run continues). Identity sequences are moved past the copied ids. `skip` names tables
 * copied another way (the vector index, file bytes).
 */
export async function copyTables(
  source: SqliteDatabase,
  target: PostgresDatabase,
  options: { skip: ReadonlySet<string>; onTable?: (copy: TableCopy) => void },
): Promise<TableCopy[]> {
  const sqliteTables = new Set(
    (
      source.raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{
        name: string;
      }>
    ).map((row) => row.name),
  );
  const copies: TableCopy[] = [];
  for (const table of await tablesInDependencyOrder(target)) {
    if (options.skip.has(table) || !sqliteTables.has(table)) continue;
    const sourceColumns = new Set(
      (source.raw.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as Array<{ name: string }>).map((c) => c.name),
    );
    const columns = (
      await target.all<{ name: string }>(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position',
        [table],
      )
    )
      .map((row) => row.name)
      .filter((name) => sourceColumns.has(name));
    const quoted = columns.map((name) => `"${name}"`).join(', ');
    const definition = (source.raw.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as { sql: string })
      .sql;
    // Insertion order where the table has one (rowid); a WITHOUT ROWID table is read in key order.
    const order = /WITHOUT\s+ROWID/i.test(definition) ? '' : ' ORDER BY rowid';
    const rows = source.raw.prepare(`SELECT ${quoted} FROM "${table}"${order}`).iterate() as IterableIterator<Record<string, unknown>>;
    let batch: unknown[][] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const values = batch.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
      await target.run(`INSERT INTO "${table}" (${quoted}) VALUES ${values} ON CONFLICT DO NOTHING`, batch.flat());
      batch = [];
    };
    for (const row of rows) {
      batch.push(columns.map((name) => row[name]));
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    const identities = await target.all<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'`,
      [table],
    );
    for (const { name } of identities) {
      await target.run(`SELECT setval(pg_get_serial_sequence(?, ?), GREATEST((SELECT MAX("${name}") FROM "${table}"), 1))`, [table, name]);
    }
    const copy: TableCopy = {
      table,
      source: (source.raw.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n,
      target: (await target.get<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`))!.n,
    };
    options.onTable?.(copy);
    copies.push(copy);
  }
  return copies;
}
