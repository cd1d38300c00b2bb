import { InvalidRequestError } from '../../errors';
import { checkLength, FIELD_LIMITS } from '../../internal/field-limits';
import type { AttributeFilter, StoreSearchOptions } from '../../vector';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice, ChatToolDefinition } from '../types';

/** The hosted `file_search` tool of a Responses request, executed by Fathom's own search. */
export interface FileSearchSettings {
  vectorStoreIds: string[];
  search: Omit<StoreSearchOptions, 'query'>;
}

/** A `/v1/responses` body read into chat terms. */
export interface ResponsesCall {
  /** The chat request without the hosted tool (its function declaration is added by the runner). */
  chat: ChatRequest;
  fileSearch?: FileSearchSettings;
  /** `include[]` asked for `file_search_call.results`. */
  includeResults: boolean;
  stream: boolean;
  /** Fields echoed on the response object. */
  echo: Record<string, unknown>;
}

/** Passages per file search (service spec: at most 8). */
export const FILE_SEARCH_MAX_RESULTS = 8;
const SUPPORTED_INCLUDE = new Set(['file_search_call.results']);
const IGNORED_WHEN_FALSE = ['store', 'background'] as const;

function fail(param: string, message: string): never {
  throw new InvalidRequestError(message, param, 'unsupported_parameter');
}

function contentParts(content: unknown, param: string): string | ChatContentPart[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) fail(param, `Invalid '${param}': expected a string or an array of content parts.`);
  return content.map((part: any, index: number): ChatContentPart => {
    const where = `${param}[${index}]`;
    if (part?.type === 'input_text' || part?.type === 'output_text' || part?.type === 'text')
      return { type: 'text', text: String(part.text ?? '') };
    if (part?.type === 'input_image' && typeof part.image_url === 'string')
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
    return fail(
      `${where}.type`,
      `Unsupported value for '${where}.type': '${part?.type}'. Fathom accepts input_text, output_text and input_image (with image_url) parts; files need /v1/files and vector stores.`,
    );
  });
}

function inputMessages(input: unknown): ChatMessage[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) fail('input', `Invalid 'input': expected a string or an array of input items.`);
  const messages: ChatMessage[] = [];
  input.forEach((item: any, index: number) => {
    const where = `input[${index}]`;
    const type = item?.type ?? (item?.role ? 'message' : undefined);
    if (type === 'message') {
      if (!['user', 'system', 'developer', 'assistant'].includes(item.role))
        fail(`${where}.role`, `Invalid '${where}.role': expected user, system, developer or assistant.`);
      messages.push({ role: item.role, content: contentParts(item.content, `${where}.content`) });
    } else if (type === 'function_call') {
      const call = {
        id: String(item.call_id),
        type: 'function' as const,
        function: { name: String(item.name), arguments: String(item.arguments ?? '') },
      };
      const last = messages[messages.length - 1];
      if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(call);
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      messages.push({
        role: 'tool',
        tool_call_id: String(item.call_id),
        content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output),
      });
    } else {
      fail(
        `${where}.type`,
        `Unsupported value for '${where}.type': '${type}'. Fathom keeps no conversation state; send message, function_call and function_call_output items.`,
      );
    }
  });
  return messages;
}

function fileSearchSettings(tool: any, where: string): FileSearchSettings {
  const ids = tool.vector_store_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id: unknown) => typeof id !== 'string')) {
    fail(`${where}.vector_store_ids`, `Missing required parameter: '${where}.vector_store_ids' (a non-empty array of vector store ids).`);
  }
  const max = tool.max_num_results;
  if (max !== undefined && (!Number.isInteger(max) || max < 1 || max > 50))
    fail(`${where}.max_num_results`, `Invalid '${where}.max_num_results': expected an integer between 1 and 50.`);
  return {
    vectorStoreIds: ids,
    search: {
      maxNumResults: Math.min(max ?? FILE_SEARCH_MAX_RESULTS, FILE_SEARCH_MAX_RESULTS),
      ...(tool.filters ? { filters: tool.filters as AttributeFilter } : {}),
      ...(tool.ranking_options?.score_threshold !== undefined ? { scoreThreshold: tool.ranking_options.score_threshold } : {}),
      ...(tool.ranking_options?.ranker ? { ranker: tool.ranking_options.ranker } : {}),
    },
  };
}

function toolChoice(choice: any): ChatToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (choice?.type === 'function' && typeof choice.name === 'string') return { type: 'function', function: { name: choice.name } };
  if (choice?.type === 'file_search') return { type: 'function', function: { name: 'file_search' } };
  return fail(
    'tool_choice',
    `Unsupported value for 'tool_choice': Fathom accepts auto, none, required, {type: "function", name} and {type: "file_search"}.`,
  );
}

function responseFormat(text: any): Record<string, unknown> | undefined {
  const format = text?.format;
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.strict !== undefined ? { strict: format.strict } : {}),
        ...(format.description ? { description: format.description } : {}),
      },
    };
  }
  return fail(
    'text.format.type',
    `Unsupported value for 'text.format.type': '${format.type}'. Fathom supports text, json_object and json_schema.`,
  );
}

/**
 * Validates a `/v1/responses` body and maps it onto chat: `input` -> user (and other) messages,
 * `instructions` -> a system message, function tools -> tools, the hosted `file_search` tool ->
 * settings for Fathom's search. Conversation state and other hosted tools answer 400 naming the field.
 */
export function readResponsesBody(body: Record<string, any>): ResponsesCall {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    fail(
      'previous_response_id',
      `Unsupported parameter: 'previous_response_id'. Fathom keeps no conversation state; send the earlier turns in 'input'.`,
    );
  }
  if (body.conversation !== undefined && body.conversation !== null)
    fail('conversation', `Unsupported parameter: 'conversation'. Fathom keeps no conversation state; send the earlier turns in 'input'.`);
  for (const field of IGNORED_WHEN_FALSE) {
    if (body[field] === true)
      fail(
        field,
        `Unsupported value for '${field}': true. Fathom does not store responses or run them in the background; omit it or send false.`,
      );
  }
  if (body.prompt !== undefined) fail('prompt', `Unsupported parameter: 'prompt' (stored prompt templates).`);
  if (body.input === undefined) fail('input', `Missing required parameter: 'input'.`);
  checkLength(body.instructions, 'instructions', FIELD_LIMITS.instructions);
  const include: unknown[] = Array.isArray(body.include) ? body.include : [];
  include.forEach((value, index) => {
    if (!SUPPORTED_INCLUDE.has(value as string))
      fail(`include[${index}]`, `Unsupported value for 'include[${index}]': '${value}'. Fathom supports file_search_call.results.`);
  });

  const tools: ChatToolDefinition[] = [];
  let fileSearch: FileSearchSettings | undefined;
  (Array.isArray(body.tools) ? body.tools : []).forEach((tool: any, index: number) => {
    const where = `tools[${index}]`;
    if (tool?.type === 'function') {
      if (typeof tool.name !== 'string' || !tool.name) fail(`${where}.name`, `Missing required parameter: '${where}.name'.`);
      tools.push({
        type: 'function',
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.parameters ?? { type: 'object', properties: {} },
          ...(tool.strict !== undefined && tool.strict !== null ? { strict: tool.strict } : {}),
        },
      });
    } else if (tool?.type === 'file_search') {
      if (fileSearch) fail(`${where}.type`, `Invalid '${where}': only one file_search tool is allowed.`);
      fileSearch = fileSearchSettings(tool, where);
    } else {
      fail(`${where}.type`, `Unsupported value for '${where}.type': '${tool?.type}'. Fathom supports function and file_search tools.`);
    }
  });

  const messages = inputMessages(body.input);
  if (typeof body.instructions === 'string' && body.instructions) messages.unshift({ role: 'system', content: body.instructions });
  const format = responseFormat(body.text);
  const chat: ChatRequest = {
    model: body.model,
    messages,
    ...(tools.length ? { tools } : {}),
    tool_choice: toolChoice(body.tool_choice),
    temperature: body.temperature ?? undefined,
    top_p: body.top_p ?? undefined,
    max_tokens: body.max_output_tokens ?? undefined,
    ...(format ? { response_format: format } : {}),
    user: body.user ?? body.safety_identifier ?? undefined,
    ...(body.parallel_tool_calls === false ? { extra: { parallel_tool_calls: false } } : {}),
  };
  return {
    chat,
    fileSearch,
    includeResults: include.includes('file_search_call.results'),
    stream: body.stream === true,
    echo: {
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      metadata: body.metadata ?? {},
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      temperature: body.temperature ?? null,
      top_p: body.top_p ?? null,
      tool_choice: body.tool_choice ?? 'auto',
      tools: body.tools ?? [],
      text: body.text ?? { format: { type: 'text' } },
      user: body.user ?? null,
    },
  };
}
