import { InvalidRequestError } from '../errors';
import type { StoreSearchOptions } from './types';

/** Validates the search options (400 naming the OpenAI field) and applies the defaults. */
export function readSearchOptions(options: StoreSearchOptions) {
  const raw = Array.isArray(options.query) ? options.query : [options.query];
  if (raw.some((query) => typeof query !== 'string'))
    throw new InvalidRequestError('query must be a string or an array of strings.', 'query');
  const queries = raw.map((query) => query.trim()).filter(Boolean);
  if (queries.length === 0) throw new InvalidRequestError('query must not be empty.', 'query');
  const limit = options.maxNumResults ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 50)
    throw new InvalidRequestError('max_num_results must be an integer from 1 to 50.', 'max_num_results');
  const threshold = options.scoreThreshold ?? 0;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    throw new InvalidRequestError('ranking_options.score_threshold must be a number from 0 to 1.', 'ranking_options.score_threshold');
  }
  const mode = options.ranker === 'none' ? 'vector' : (options.mode ?? 'hybrid');
  return { queries, limit, threshold, mode };
}
