import type { Database } from '../db';
import { InvalidRequestError } from '../errors';

/** List query of every list route: `limit` (1..100, default 20), `order` (default desc), `after`, `before`. */
export interface ListQuery {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
  before?: string;
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** Validates raw query-string values into a `ListQuery`, naming the offending field on error. */
export function parseListQuery(raw: Record<string, unknown>, maxLimit = 100): ListQuery {
  const query: ListQuery = {};
  if (raw.limit !== undefined && raw.limit !== '') {
    const limit = Number(raw.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
      throw new InvalidRequestError(`Invalid 'limit': expected an integer between 1 and ${maxLimit}.`, 'limit');
    }
    query.limit = limit;
  }
  if (raw.order !== undefined && raw.order !== '') {
    if (raw.order !== 'asc' && raw.order !== 'desc') {
      throw new InvalidRequestError(`Invalid 'order': expected 'asc' or 'desc'.`, 'order');
    }
    query.order = raw.order;
  }
  for (const key of ['after', 'before'] as const) {
    const value = raw[key];
    if (value !== undefined && value !== '') {
      if (typeof value !== 'string') throw new InvalidRequestError(`Invalid '${key}': expected a string id.`, key);
      query[key] = value;
    }
  }
  return query;
}

export interface PaginateOptions<Row, T> {
  /** Table (or view) name; rows are ordered by `rowid`, i.e. insertion order. */
  table: string;
  /** SQL condition restricting the rows, e.g. `account_id = ? AND purpose = ?`. */
  where: string;
  params: unknown[];
  query: ListQuery;
  map: (row: Row) => T & { id: string };
  /** Column holding the public id; default `id`. */
  idColumn?: string;
}

/**
 * Cursor pagination over insertion order. `after`/`before` name an id of the same list;
 * an unknown cursor yields an empty page rather than an error, as OpenAI does.
 */
export function paginate<Row, T>(db: Database, options: PaginateOptions<Row, T>): ListPage<T & { id: string }> {
  const limit = options.query.limit ?? 20;
  const order = options.query.order ?? 'desc';
  const idColumn = options.idColumn ?? 'id';
  const conditions = [`(${options.where})`];
  const params = [...options.params];
  const cursor = (id: string, op: string) => {
    conditions.push(`rowid ${op} (SELECT rowid FROM ${options.table} WHERE ${idColumn} = ?)`);
    params.push(id);
  };
  if (options.query.after) cursor(options.query.after, order === 'desc' ? '<' : '>');
  if (options.query.before) cursor(options.query.before, order === 'desc' ? '>' : '<');
  const sql = `SELECT * FROM ${options.table} WHERE ${conditions.join(' AND ')} ORDER BY rowid ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`;
  const rows = db.prepare(sql).all(...params, limit + 1) as Row[];
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit).map(options.map);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: hasMore,
  };
}
