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
