import { InvalidRequestError } from '../errors';
import { validateMetadata } from '../internal/metadata';
import type { AssistantTool, FileSearchToolOptions, Metadata, ToolResources } from './types';

/** Fathom's cap on passages per file_search call (spec: at most 8). */
export const MAX_FILE_SEARCH_RESULTS = 8;

/** Checks `tools[]` (file_search with `max_num_results` 1..50, searches cap it at 8, and `ranking_options`, function) and fills defaults. */
export function normalizeTools(value: unknown, param = 'tools'): AssistantTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InvalidRequestError(`Invalid '${param}': expected an array of tools.`, param);
  if (value.length > 128) throw new InvalidRequestError(`Invalid '${param}': at most 128 tools.`, param);
  return value.map((tool, index) => {
    const at = `${param}[${index}]`;
    if (!tool || typeof tool !== 'object') throw new InvalidRequestError(`Invalid '${at}': expected an object.`, at);
    const type = (tool as { type?: unknown }).type;
    if (type === 'file_search') {
      const options = (tool as { file_search?: { max_num_results?: unknown; ranking_options?: unknown } | null }).file_search;
      if (options === undefined || options === null) return { type: 'file_search' };
      const max = options.max_num_results;
      if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 50)) {
        throw new InvalidRequestError(
          `Invalid '${at}.file_search.max_num_results': expected an integer between 1 and 50.`,
          `${at}.file_search.max_num_results`,
        );
      }
      const ranking = options.ranking_options as { ranker?: unknown; score_threshold?: unknown } | null | undefined;
      let rankingOptions: FileSearchToolOptions['ranking_options'];
      if (ranking !== undefined) {
        const threshold = ranking?.score_threshold;
        if (typeof threshold !== 'number' || threshold < 0 || threshold > 1) {
          throw new InvalidRequestError(
            `Invalid '${at}.file_search.ranking_options.score_threshold': expected a number between 0 and 1.`,
            `${at}.file_search.ranking_options.score_threshold`,
          );
        }
        const ranker = ranking?.ranker ?? 'auto';
        if (typeof ranker !== 'string') {
          throw new InvalidRequestError(
            `Invalid '${at}.file_search.ranking_options.ranker': expected a string.`,
            `${at}.file_search.ranking_options.ranker`,
          );
        }
        rankingOptions = { ranker, score_threshold: threshold };
      }
      return {
        type: 'file_search',
        file_search: {
          ...(max !== undefined ? { max_num_results: max } : {}),
          ...(rankingOptions !== undefined ? { ranking_options: rankingOptions } : {}),
        },
      };
    }
    if (type === 'function') {
      const fn = (tool as { function?: { name?: unknown; description?: unknown; parameters?: unknown; strict?: unknown } | null }).function;
      if (!fn || typeof fn.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
        throw new InvalidRequestError(
          `Invalid '${at}.function.name': expected a name of 1 to 64 letters, digits, '_' or '-'.`,
          `${at}.function.name`,
        );
      }
      const parameters = fn.parameters ?? { type: 'object', properties: {} };
      if (typeof parameters !== 'object' || Array.isArray(parameters)) {
        throw new InvalidRequestError(`Invalid '${at}.function.parameters': expected a JSON Schema object.`, `${at}.function.parameters`);
      }
      const strict = fn.strict;
      if (strict !== undefined && strict !== null && typeof strict !== 'boolean') {
        throw new InvalidRequestError(`Invalid '${at}.function.strict': expected a boolean.`, `${at}.function.strict`);
      }
      return {
        type: 'function',
        function: {
          name: fn.name,
          ...(fn.description !== undefined ? { description: String(fn.description) } : {}),
          // An object that is not an array: a JSON object, the shape of a JSON Schema.
          parameters: parameters as Record<string, unknown>,
          ...(strict !== undefined ? { strict } : {}),
        },
      };
    }
    if (type === 'code_interpreter') {
      throw new InvalidRequestError(
        `Invalid '${at}.type': 'code_interpreter' is not supported by Fathom; use 'file_search' or 'function'.`,
        `${at}.type`,
      );
    }
    throw new InvalidRequestError(`Invalid '${at}.type': expected 'file_search' or 'function'.`, `${at}.type`);
  });
}

/** Checks `tool_resources.file_search.vector_store_ids` (strings); other resources are kept as given. */
export function normalizeToolResources(value: unknown, param = 'tool_resources'): ToolResources | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') throw new InvalidRequestError(`Invalid '${param}': expected an object.`, param);
  const resources = value as ToolResources & { file_search?: { vector_stores?: unknown } };
  const ids = resources.file_search?.vector_store_ids;
  if (resources.file_search?.vector_stores !== undefined) {
    throw new InvalidRequestError(
      `Invalid '${param}.file_search.vector_stores': create the store with POST /v1/vector_stores and pass its id in 'vector_store_ids'.`,
      `${param}.file_search.vector_stores`,
    );
  }
  if (ids !== undefined && (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string'))) {
    throw new InvalidRequestError(
      `Invalid '${param}.file_search.vector_store_ids': expected an array of vector store ids.`,
      `${param}.file_search.vector_store_ids`,
    );
  }
  const out: ToolResources = {};
  if (resources.file_search) out.file_search = { vector_store_ids: [...new Set(ids ?? [])] };
  if (resources.code_interpreter) out.code_interpreter = resources.code_interpreter;
  return out;
}

/** Metadata: at most 16 string pairs, keys up to 64 and values up to 512 characters (the one rule, `validateMetadata`). */
export function normalizeMetadata(value: unknown, param = 'metadata'): Metadata | null {
  return validateMetadata(value, param);
}

/** Optional number in a range, or null. */
export function optionalNumber(value: unknown, param: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || value < min || value > max) {
    throw new InvalidRequestError(`Invalid '${param}': expected a number between ${min} and ${max}.`, param);
  }
  return value;
}

/** Model ids look like `<vendor>/<model_name>`. */
export function requireModel(value: unknown, param = 'model'): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidRequestError(`Missing required parameter: '${param}'.`, param);
  return value;
}
