/**
 * SQL for the size in bytes of a text column (UTF-8): `octet_length` on both backends (SQLite 3.43+),
 * which PostgreSQL answers from a TOASTed value's header without reading it.
 */
export function byteLengthSql(column: string): string {
  return `octet_length(${column})`;
}

/** `values` in slices of at most `size` (bound parameters per statement stay well under every backend's limit). */
export function slices<T>(values: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

/** `(?, ?, ?)` for a list of `count` values (at least one: `IN ()` is not SQL). */
export function placeholders(count: number): string {
  return `(${Array.from({ length: Math.max(1, count) }, () => '?').join(', ')})`;
}

/** Whether a driver error is a unique-constraint violation (SQLite `SQLITE_CONSTRAINT_UNIQUE`/`_PRIMARYKEY`, PostgreSQL 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Whether a driver error says the disk or database is full (SQLite `SQLITE_FULL`, PostgreSQL 53100 `disk_full`). */
export function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC';
}
