import { InvalidRequestError } from '../errors';
import { checkLength, FIELD_LIMITS } from '../internal/field-limits';
import { validateMetadata } from '../internal/metadata';
import type { ChatToolChoice, ChatToolDefinition } from '../models/types';
import type { AttributeFilter, StoreSearchOptions } from '../vector';
import { type InputItem, normalizeInput } from './items';

/** The hosted `file_search` tool of a request, executed by Fathom's own search. */
export interface FileSearchSettings {
  /** Where the tool is in the request, e.g. `tools[1]`. */
  at: string;
  vectorStoreIds: string[];
  search: Omit<StoreSearchOptions, 'query'>;
}

/** A `/v1/responses` body, validated and read into what Fathom runs. */
export interface ResponseRequest {
  model: string;
  /** The new input items, normalised (references still unresolved). */
  input: InputItem[];
  instructions: string | null;
  /** Function tools as chat tools (the hosted file_search tool is in `fileSearch`). */
  tools: ChatToolDefinition[];
  fileSearch?: FileSearchSettings;
  toolChoice?: ChatToolChoice;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  /** Most hosted tool calls (file searches) the response may make. */
  maxToolCalls?: number;
  responseFormat?: Record<string, unknown>;
  reasoningEffort?: string;
  parallelToolCalls: boolean;
  user?: string;
  truncation: 'auto' | 'disabled';
  store: boolean;
  background: boolean;
  stream: boolean;
  previousResponseId?: string;
  conversationId?: string;
  include: string[];
  metadata: Record<string, string>;
  /** The request's own fields as the response object echoes them. */
  echo: Record<string, unknown>;
}

/** Passages per file search (service spec: at most 8). */
export const FILE_SEARCH_MAX_RESULTS = 8;

/** Every `include` value OpenAI documents; those that do not apply to Fathom's tools are accepted and ignored. */
export const RESPONSE_INCLUDABLES = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];

function fail(param: string, message: string, code = 'invalid_request_error'): never {
  throw new InvalidRequestError(message, param, code);
}

/** The value of `key`, with `null` read as absent (OpenAI's schema allows null on these fields). */
function field(body: Record<string, unknown>, key: string): unknown {
  const value = body[key];
  return value === null ? undefined : value;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = field(body, key);
  if (value !== undefined && typeof value !== 'string') fail(key, `Invalid type for '${key}': expected a string.`);
  return value as string | undefined;
}

function optionalBoolean(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = field(body, key);
  if (value !== undefined && typeof value !== 'boolean') fail(key, `Invalid type for '${key}': expected a boolean.`);
  return value as boolean | undefined;
}

function optionalNumber(body: Record<string, unknown>, key: string, min: number, max: number, integer = false): number | undefined {
  const value = field(body, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    fail(key, `Invalid type for '${key}': expected ${integer ? 'an integer' : 'a number'}.`);
  }
  if (value < min || value > max) fail(key, `Invalid '${key}': expected a value between ${min} and ${max}, got ${value}.`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fileSearchSettings(tool: Record<string, unknown>, where: string): FileSearchSettings {
  const ids = tool.vector_store_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) {
    fail(`${where}.vector_store_ids`, `Missing required parameter: '${where}.vector_store_ids' (a non-empty array of vector store ids).`);
  }
  const max = tool.max_num_results ?? undefined;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 1 || (max as number) > 50)) {
    fail(`${where}.max_num_results`, `Invalid '${where}.max_num_results': expected an integer between 1 and 50.`);
  }
  const ranking = isObject(tool.ranking_options) ? tool.ranking_options : {};
  const hybrid = isObject(ranking.hybrid_search) ? ranking.hybrid_search : undefined;
  const threshold = ranking.score_threshold ?? undefined;
  if (threshold !== undefined && (typeof threshold !== 'number' || threshold < 0 || threshold > 1)) {
    fail(
      `${where}.ranking_options.score_threshold`,
      `Invalid '${where}.ranking_options.score_threshold': expected a number between 0 and 1.`,
    );
  }
  return {
    at: where,
    vectorStoreIds: ids as string[],
    search: {
      maxNumResults: Math.min((max as number | undefined) ?? FILE_SEARCH_MAX_RESULTS, FILE_SEARCH_MAX_RESULTS),
      ...(isObject(tool.filters) ? { filters: tool.filters as unknown as AttributeFilter } : {}),
      ...(threshold !== undefined ? { scoreThreshold: threshold as number } : {}),
      ...(typeof ranking.ranker === 'string' ? { ranker: ranking.ranker as StoreSearchOptions['ranker'] } : {}),
      ...(hybrid ? { hybridWeights: { embedding: Number(hybrid.embedding_weight ?? 1), text: Number(hybrid.text_weight ?? 1) } } : {}),
    },
  };
}

function readTools(body: Record<string, unknown>): { tools: ChatToolDefinition[]; fileSearch?: FileSearchSettings } {
  const raw = field(body, 'tools');
  if (raw === undefined) return { tools: [] };
  if (!Array.isArray(raw)) fail('tools', `Invalid type for 'tools': expected an array.`);
  const tools: ChatToolDefinition[] = [];
  let fileSearch: FileSearchSettings | undefined;
  raw.forEach((tool: unknown, index) => {
    const where = `tools[${index}]`;
    if (!isObject(tool)) fail(where, `Invalid '${where}': expected an object.`);
    if (tool.type === 'function') {
      if (typeof tool.name !== 'string' || !tool.name) fail(`${where}.name`, `Missing required parameter: '${where}.name'.`);
      tools.push({
        type: 'function',
        function: {
          name: tool.name,
          ...(typeof tool.description === 'string' && tool.description ? { description: tool.description } : {}),
          parameters: isObject(tool.parameters) ? tool.parameters : { type: 'object', properties: {} },
          ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
        },
      });
    } else if (tool.type === 'file_search') {
      if (fileSearch) fail(`${where}.type`, `Invalid '${where}': only one file_search tool is allowed.`);
      fileSearch = fileSearchSettings(tool, where);
    } else {
      fail(
        `${where}.type`,
        `Unsupported value for '${where}.type': '${String(tool.type)}'. Fathom supports function and file_search tools.`,
        'unsupported_parameter',
      );
    }
  });
  return { tools, fileSearch };
}

function readToolChoice(body: Record<string, unknown>): ChatToolChoice | undefined {
  const choice = field(body, 'tool_choice');
  if (choice === undefined) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string')
    return { type: 'function', function: { name: choice.name } };
  if (isObject(choice) && choice.type === 'file_search') return { type: 'function', function: { name: 'file_search' } };
  return fail(
    'tool_choice',
    `Unsupported value for 'tool_choice': Fathom accepts auto, none, required, {type: "function", name} and {type: "file_search"}.`,
    'unsupported_parameter',
  );
}

function readFormat(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const text = field(body, 'text');
  if (text === undefined) return undefined;
  if (!isObject(text)) fail('text', `Invalid type for 'text': expected an object.`);
  const format = text.format ?? undefined;
  if (format === undefined) return undefined;
  if (!isObject(format)) fail('text.format', `Invalid type for 'text.format': expected an object.`);
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    if (typeof format.name !== 'string' || !format.name) fail('text.format.name', `Missing required parameter: 'text.format.name'.`);
    if (!isObject(format.schema)) fail('text.format.schema', `Missing required parameter: 'text.format.schema'.`);
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
        ...(typeof format.description === 'string' ? { description: format.description } : {}),
      },
    };
  }
  return fail(
    'text.format.type',
    `Unsupported value for 'text.format.type': '${String(format.type)}'. Fathom supports text, json_object and json_schema.`,
    'unsupported_parameter',
  );
}

function readConversation(body: Record<string, unknown>): string | undefined {
  const value = field(body, 'conversation');
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value) return value;
  if (isObject(value) && typeof value.id === 'string' && value.id) return value.id;
  return fail('conversation', `Invalid 'conversation': expected a conversation id or {id}.`);
}

function readInclude(body: Record<string, unknown>): string[] {
  const include = field(body, 'include');
  if (include === undefined) return [];
  if (!Array.isArray(include)) fail('include', `Invalid type for 'include': expected an array of strings.`);
  include.forEach((value, index) => {
    if (!RESPONSE_INCLUDABLES.includes(value as string)) {
      fail(
        `include[${index}]`,
        `Invalid value for 'include[${index}]': '${String(value)}'. Supported values are: ${RESPONSE_INCLUDABLES.map((name) => `'${name}'`).join(', ')}.`,
      );
    }
  });
  return include as string[];
}

/**
 * Validates a `/v1/responses` body (each error names its field; `null` means absent wherever OpenAI
 * allows it) and reads it into a `ResponseRequest`. Fields Fathom has no use for (prompt caching,
 * service tier, moderation settings…) are accepted and ignored.
 */
export function readResponseRequest(body: Record<string, unknown>): ResponseRequest {
  if (!isObject(body)) fail('body', 'The request body must be a JSON object.');
  const model = optionalString(body, 'model');
  if (!model) fail('model', `Missing required parameter: 'model'.`);
  if (field(body, 'prompt') !== undefined)
    fail('prompt', `Unsupported parameter: 'prompt' (stored prompt templates).`, 'unsupported_parameter');
  const previousResponseId = optionalString(body, 'previous_response_id');
  const conversationId = readConversation(body);
  if (previousResponseId && conversationId) {
    fail('conversation', `Mutually exclusive parameters: 'previous_response_id' and 'conversation'. Send only one of them.`);
  }
  const rawInput = field(body, 'input');
  if (rawInput === undefined && !previousResponseId && !conversationId) fail('input', `Missing required parameter: 'input'.`);
  const input = rawInput === undefined ? [] : normalizeInput(rawInput);
  const store = optionalBoolean(body, 'store') ?? true;
  const background = optionalBoolean(body, 'background') ?? false;
  if (background && !store)
    fail('background', `Invalid value for 'background': background responses must be stored; send store: true (the default).`);
  const truncation = field(body, 'truncation') ?? 'disabled';
  if (truncation !== 'auto' && truncation !== 'disabled')
    fail('truncation', `Invalid value for 'truncation': expected 'auto' or 'disabled'.`);
  const reasoning = field(body, 'reasoning');
  if (reasoning !== undefined && !isObject(reasoning)) fail('reasoning', `Invalid type for 'reasoning': expected an object.`);
  const effort = reasoning?.effort ?? undefined;
  if (effort !== undefined && typeof effort !== 'string')
    fail('reasoning.effort', `Invalid type for 'reasoning.effort': expected a string.`);
  const instructions = optionalString(body, 'instructions') ?? null;
  checkLength(instructions, 'instructions', FIELD_LIMITS.instructions);
  const metadata = validateMetadata(field(body, 'metadata')) ?? {};
  const { tools, fileSearch } = readTools(body);
  const temperature = optionalNumber(body, 'temperature', 0, 2);
  const topP = optionalNumber(body, 'top_p', 0, 1);
  const maxOutputTokens = optionalNumber(body, 'max_output_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  const maxToolCalls = optionalNumber(body, 'max_tool_calls', 1, 1000, true);
  const parallelToolCalls = optionalBoolean(body, 'parallel_tool_calls') ?? true;
  const user = optionalString(body, 'user') ?? optionalString(body, 'safety_identifier');
  optionalNumber(body, 'top_logprobs', 0, 20, true);
  return {
    model,
    input,
    instructions,
    tools,
    fileSearch,
    toolChoice: readToolChoice(body),
    temperature,
    topP,
    maxOutputTokens,
    maxToolCalls,
    responseFormat: readFormat(body),
    reasoningEffort: effort as string | undefined,
    parallelToolCalls,
    user,
    truncation,
    store,
    background,
    stream: optionalBoolean(body, 'stream') ?? false,
    previousResponseId,
    conversationId,
    include: readInclude(body),
    metadata,
    echo: {
      instructions,
      max_output_tokens: maxOutputTokens ?? null,
      max_tool_calls: maxToolCalls ?? null,
      metadata,
      parallel_tool_calls: parallelToolCalls,
      temperature: temperature ?? null,
      top_p: topP ?? null,
      tool_choice: field(body, 'tool_choice') ?? 'auto',
      tools: field(body, 'tools') ?? [],
      text: field(body, 'text') ?? { format: { type: 'text' } },
      reasoning: { effort: effort ?? null, summary: (reasoning?.summary as string | undefined) ?? null },
      truncation,
      store,
      background,
      user: user ?? null,
      safety_identifier: optionalString(body, 'safety_identifier') ?? null,
      prompt_cache_key: optionalString(body, 'prompt_cache_key') ?? null,
      service_tier: optionalString(body, 'service_tier') ?? 'default',
      top_logprobs: field(body, 'top_logprobs') ?? 0,
    },
  };
}
