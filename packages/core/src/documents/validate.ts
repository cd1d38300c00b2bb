import { InvalidRequestError } from '../errors';
import { FIELD_LIMITS } from '../internal/field-limits';
import { longerThan } from '../internal/metadata';
import type { AttributeFilter, StoreSearchOptions } from '../vector';

export type Attributes = Record<string, string | number | boolean>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export { validateMetadata } from '../internal/metadata';

const { metadataKeys, metadataKey, metadataValue } = FIELD_LIMITS;

/** `attributes`: at most 16 keys up to 64 characters; values strings (<= 512 characters), numbers or booleans. */
export function validateAttributes(raw: unknown, param = 'attributes'): Attributes | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected an object.`, param);
  const entries = Object.entries(raw);
  if (entries.length > metadataKeys) throw new InvalidRequestError(`Invalid '${param}': at most ${metadataKeys} keys are allowed.`, param);
  for (const [key, value] of entries) {
    if (longerThan(key, metadataKey))
      throw new InvalidRequestError(`Invalid '${param}': key '${key.slice(0, 20)}…' is longer than ${metadataKey} characters.`, param);
    const ok =
      (typeof value === 'string' && !longerThan(value, metadataValue)) ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value));
    if (!ok) {
      throw new InvalidRequestError(
        `Invalid '${param}.${key}': expected a string of at most ${metadataValue} characters, a number or a boolean.`,
        `${param}.${key}`,
      );
    }
  }
  return raw as Attributes;
}

/** `expires_after`: `{anchor: 'last_active_at', days: 1..365}` or null. */
export function validateExpiresAfter(raw: unknown, param = 'expires_after'): { anchor: 'last_active_at'; days: number } | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected {anchor: 'last_active_at', days}.`, param);
  if (raw.anchor !== 'last_active_at') {
    throw new InvalidRequestError(`Invalid value for '${param}.anchor': expected 'last_active_at'.`, `${param}.anchor`);
  }
  if (!Number.isInteger(raw.days) || (raw.days as number) < 1 || (raw.days as number) > 365) {
    throw new InvalidRequestError(`Invalid '${param}.days': expected an integer between 1 and 365.`, `${param}.days`);
  }
  return { anchor: 'last_active_at', days: raw.days as number };
}

/**
 * `expires_after` of `POST /v1/files`: `{anchor: 'created_at', seconds: 3600..2592000}` (one hour to 30
 * days). Multipart forms send it as the fields `expires_after[anchor]` and `expires_after[seconds]`, so
 * `seconds` may arrive as a numeric string.
 */
export function validateFileExpiresAfter(raw: unknown, param = 'expires_after'): { anchor: 'created_at'; seconds: number } | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected {anchor: 'created_at', seconds}.`, param);
  if (raw.anchor !== 'created_at') {
    throw new InvalidRequestError(`Invalid value for '${param}.anchor': expected 'created_at'.`, `${param}.anchor`);
  }
  const seconds = typeof raw.seconds === 'string' && /^\d+$/.test(raw.seconds) ? Number(raw.seconds) : raw.seconds;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 3600 || seconds > 2_592_000) {
    throw new InvalidRequestError(
      `Invalid '${param}.seconds': expected an integer between 3600 (1 hour) and 2592000 (30 days).`,
      `${param}.seconds`,
    );
  }
  return { anchor: 'created_at', seconds };
}

const COMPARISONS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];

/** Validates a (nested) attribute filter, naming the offending path, e.g. `filters.filters[1].value`. */
export function validateFilter(raw: unknown, param = 'filters'): AttributeFilter {
  if (!isObject(raw)) throw new InvalidRequestError(`Invalid '${param}': expected a comparison or compound filter object.`, param);
  const type = raw.type;
  if (type === 'and' || type === 'or') {
    if (!Array.isArray(raw.filters))
      throw new InvalidRequestError(`Invalid '${param}.filters': expected an array of filters.`, `${param}.filters`);
    return { type, filters: raw.filters.map((filter, i) => validateFilter(filter, `${param}.filters[${i}]`)) };
  }
  if (typeof type !== 'string' || (!COMPARISONS.includes(type) && type !== 'in' && type !== 'nin')) {
    throw new InvalidRequestError(
      `Invalid value for '${param}.type': expected one of eq, ne, gt, gte, lt, lte, in, nin, and, or.`,
      `${param}.type`,
    );
  }
  if (typeof raw.key !== 'string' || !raw.key) throw new InvalidRequestError(`Missing required parameter: '${param}.key'.`, `${param}.key`);
  const value = raw.value;
  if (type === 'in' || type === 'nin') {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
      throw new InvalidRequestError(`Invalid '${param}.value': '${type}' needs an array of strings or numbers.`, `${param}.value`);
    }
    return { type, key: raw.key, value };
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new InvalidRequestError(`Invalid '${param}.value': expected a string, number or boolean.`, `${param}.value`);
  }
  return { type: type as 'eq', key: raw.key, value };
}

/** The body of `POST /v1/vector_stores/{id}/search` (OpenAI's names) to `StoreSearchOptions`. */
export function parseSearchRequest(body: Record<string, unknown>): StoreSearchOptions {
  const problems: Array<[string, string]> = [];
  const query = body.query;
  const queryOk =
    (typeof query === 'string' && query.trim() !== '') ||
    (Array.isArray(query) && query.length > 0 && query.every((q) => typeof q === 'string' && q.trim() !== ''));
  if (query === undefined) problems.push(["Missing required parameter: 'query'.", 'query']);
  else if (!queryOk) problems.push(["Invalid 'query': expected a non-empty string or a non-empty array of strings.", 'query']);
  const max = body.max_num_results;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 50)) {
    problems.push(["Invalid 'max_num_results': expected an integer between 1 and 50.", 'max_num_results']);
  }
  if (body.rewrite_query !== undefined && typeof body.rewrite_query !== 'boolean') {
    problems.push(["Invalid 'rewrite_query': expected a boolean.", 'rewrite_query']);
  }
  const ranking = body.ranking_options;
  let scoreThreshold: number | undefined;
  let ranker: StoreSearchOptions['ranker'];
  if (ranking !== undefined) {
    if (!isObject(ranking)) problems.push(["Invalid 'ranking_options': expected an object.", 'ranking_options']);
    else {
      const threshold = ranking.score_threshold;
      if (threshold !== undefined && (typeof threshold !== 'number' || threshold < 0 || threshold > 1)) {
        problems.push(["Invalid 'ranking_options.score_threshold': expected a number between 0 and 1.", 'ranking_options.score_threshold']);
      } else scoreThreshold = threshold as number | undefined;
      if (ranking.ranker !== undefined && !['none', 'auto', 'default-2024-11-15'].includes(ranking.ranker as string)) {
        problems.push([
          "Invalid value for 'ranking_options.ranker': expected 'none', 'auto' or 'default-2024-11-15'.",
          'ranking_options.ranker',
        ]);
      } else ranker = ranking.ranker as StoreSearchOptions['ranker'];
    }
  }
  let filters: AttributeFilter | undefined;
  if (body.filters !== undefined && body.filters !== null) {
    try {
      filters = validateFilter(body.filters);
    } catch (error) {
      problems.push([(error as Error).message, (error as InvalidRequestError).param ?? 'filters']);
    }
  }
  if (problems.length) throw new InvalidRequestError(problems.map(([message]) => message).join(' '), problems[0]![1]);
  return {
    query: query as string | string[],
    maxNumResults: (max as number | undefined) ?? 10,
    filters,
    scoreThreshold,
    ranker,
    rewriteQuery: body.rewrite_query === true,
  };
}
