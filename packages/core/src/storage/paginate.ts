import type { ListPage, ListQuery } from '../internal/pagination';
import type { SqlClient } from './sql-client';

export interface PaginateOptions<Row, T> {
  /** Table (or view) name. */
  table: string;
  /**
   * The columns `map` reads, e.g. `id, status, data`. Required: a list reads only what it returns, never a
   * row's large columns it does not show (a run's state, a job's input, a version's workflow).
   */
  columns: string;
  /** SQL condition restricting the rows, e.g. `account_id = ? AND purpose = ?`. */
  where: string;
  params: readonly unknown[];
  query: ListQuery;
  map: (row: Row) => T & { id: string };
  /** Column holding the public id; default `id`. */
  idColumn?: string;
  /**
   * Column that orders the rows by insertion; default `rowid` on SQLite and `seq` (an identity column
   * every listed table has there) on PostgreSQL.
   */
  orderColumn?: string;
}

/**
 * Cursor pagination over insertion order. `after`/`before` name an id of the same list; an unknown
 * cursor yields an empty page rather than an error, as OpenAI does.
 */
export async function paginate<Row, T>(client: SqlClient, options: PaginateOptions<Row, T>): Promise<ListPage<T & { id: string }>> {
  const limit = options.query.limit ?? 20;
  const order = options.query.order ?? 'desc';
  const idColumn = options.idColumn ?? 'id';
  const orderColumn = options.orderColumn ?? (client.dialect === 'sqlite' ? 'rowid' : 'seq');
  const conditions = [`(${options.where})`];
  const params = [...options.params];
  const cursor = (id: string, op: string) => {
    conditions.push(`${orderColumn} ${op} (SELECT ${orderColumn} FROM ${options.table} WHERE ${idColumn} = ?)`);
    params.push(id);
  };
  if (options.query.after) cursor(options.query.after, order === 'desc' ? '<' : '>');
  if (options.query.before) cursor(options.query.before, order === 'desc' ? '>' : '<');
  const sql = `SELECT ${options.columns} FROM ${options.table} WHERE ${conditions.join(' AND ')} ORDER BY ${orderColumn} ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`;
  const rows = await client.all<Row>(sql, [...params, limit + 1]);
  return toPage(rows, limit, options.map);
}

/** A list page of the first `limit` of `rows` (one more was fetched to know whether there are more). */
export function toPage<Row, T extends { id: string }>(rows: Row[], limit: number, map: (row: Row) => T): ListPage<T> {
  const data = rows.slice(0, limit).map(map);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: rows.length > limit,
  };
}
