import { InvalidRequestError } from '../errors';
import type { AttributeFilter } from './types';

export type Attributes = Record<string, string | number | boolean> | null;

const COMPARISONS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin']);
const COMPOUNDS = new Set(['and', 'or']);

/** Checks a filter's shape, naming the offending path (e.g. `filters.filters[1].value`). */
export function validateAttributeFilter(filter: unknown, path = 'filters'): asserts filter is AttributeFilter {
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) throw new InvalidRequestError(`${path} must be an object.`, path);
  const { type } = filter as { type?: unknown };
  if (typeof type === 'string' && COMPOUNDS.has(type)) {
    const nested = (filter as { filters?: unknown }).filters;
    if (!Array.isArray(nested)) throw new InvalidRequestError(`${path}.filters must be an array of filters.`, `${path}.filters`);
    nested.forEach((inner, index) => validateAttributeFilter(inner, `${path}.filters[${index}]`));
    return;
  }
  if (typeof type !== 'string' || !COMPARISONS.has(type)) {
    throw new InvalidRequestError(`${path}.type must be one of eq, ne, gt, gte, lt, lte, in, nin, and, or.`, `${path}.type`);
  }
  const { key, value } = filter as { key?: unknown; value?: unknown };
  if (typeof key !== 'string' || !key) throw new InvalidRequestError(`${path}.key must be a non-empty string.`, `${path}.key`);
  const scalar = (item: unknown) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean';
  if (type === 'in' || type === 'nin') {
    if (!Array.isArray(value) || !value.every(scalar))
      throw new InvalidRequestError(`${path}.value must be an array of strings or numbers for '${type}'.`, `${path}.value`);
  } else if (!scalar(value)) {
    throw new InvalidRequestError(`${path}.value must be a string, number or boolean.`, `${path}.value`);
  }
}

function compare(actual: string | number | boolean, expected: string | number | boolean): number | null {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string') return actual < expected ? -1 : actual > expected ? 1 : 0;
  return null;
}

/**
 * Evaluates an OpenAI `filters` expression against a file's attributes. A missing key matches only
 * `ne` and `nin`; ordering comparisons need values of the same type (numbers, or strings compared
 * lexicographically, which orders ISO dates correctly).
 */
export function matchesAttributeFilter(filter: AttributeFilter, attributes: Attributes): boolean {
  switch (filter.type) {
    case 'and':
      return filter.filters.every((inner) => matchesAttributeFilter(inner, attributes));
    case 'or':
      return filter.filters.some((inner) => matchesAttributeFilter(inner, attributes));
    case 'in':
    case 'nin': {
      const actual = attributes?.[filter.key];
      const found = actual !== undefined && (filter.value as unknown[]).includes(actual);
      return filter.type === 'in' ? found : !found;
    }
    default: {
      const actual = attributes?.[filter.key];
      if (filter.type === 'ne') return actual !== filter.value;
      if (actual === undefined) return false;
      if (filter.type === 'eq') return actual === filter.value;
      const order = compare(actual, filter.value);
      if (order === null) return false;
      if (filter.type === 'gt') return order > 0;
      if (filter.type === 'gte') return order >= 0;
      if (filter.type === 'lt') return order < 0;
      return order <= 0;
    }
  }
}
