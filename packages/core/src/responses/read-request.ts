import { InvalidRequestError } from '../errors';
import type { ChatToolChoice, ChatToolDefinition } from '../models/types';
import type { AttributeFilter, StoreSearchOptions } from '../vector';
import { type InputItem, normalizeInput } from './items';
import { echoMcpTool, MAX_MCP_SERVERS, type McpToolChoice, type McpToolSettings, readMcpTool } from './mcp-request';
import type { ResponseCreateParams, ResponseIncludable } from './wire';

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
  /** The `mcp` tools, one per `server_label` (their headers are secrets: see `withoutMcpSecrets`). */
  mcp: McpToolSettings[];
  toolChoice?: ChatToolChoice;
  /** `tool_choice: {type: "mcp", server_label, name?}`: the first model turn must call that server's tool (`McpRun` maps it). */
  mcpToolChoice?: McpToolChoice;
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
  include: ResponseIncludable[];
  metadata: Record<string, string>;
  /** The request's own fields as the response object echoes them. */
  echo: Record<string, unknown>;
}

/** Passages per file search (service spec: at most 8). */
export const FILE_SEARCH_MAX_RESULTS = 8;

function fail(param: string, message: string, code = 'invalid_request_error'): never {
  throw new InvalidRequestError(message, param, code);
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

function readTools(
  raw: ResponseCreateParams['tools'],
  mcpServers: ReadonlySet<string> | undefined,
): { tools: ChatToolDefinition[]; fileSearch?: FileSearchSettings; mcp: McpToolSettings[] } {
  if (!raw) return { tools: [], mcp: [] };
  const tools: ChatToolDefinition[] = [];
  const mcp: McpToolSettings[] = [];
  let fileSearch: FileSearchSettings | undefined;
  raw.forEach((tool: Record<string, unknown>, index) => {
    const where = `tools[${index}]`;
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
    } else if (tool.type === 'mcp') {
      const settings = readMcpTool(tool, where, mcpServers);
      if (mcp.some((other) => other.serverLabel === settings.serverLabel)) {
        fail(
          `${where}.server_label`,
          `Invalid '${where}.server_label': '${settings.serverLabel}' names two mcp tools; labels must be unique.`,
        );
      }
      if (mcp.length >= MAX_MCP_SERVERS) fail(where, `Invalid '${where}': a request may use at most ${MAX_MCP_SERVERS} MCP servers.`);
      mcp.push(settings);
    } else {
      fail(
        `${where}.type`,
        `Unsupported value for '${where}.type': '${String(tool.type)}'. Fathom supports function, file_search and mcp tools.`,
        'unsupported_parameter',
      );
    }
  });
  return { tools, fileSearch, mcp };
}

function readToolChoice(
  choice: ResponseCreateParams['tool_choice'],
  mcp: readonly McpToolSettings[],
): ChatToolChoice | McpToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string')
    return { type: 'function', function: { name: choice.name } };
  if (isObject(choice) && choice.type === 'file_search') return { type: 'function', function: { name: 'file_search' } };
  if (isObject(choice) && choice.type === 'mcp') {
    const label = choice.server_label;
    if (typeof label !== 'string' || !mcp.some((tool) => tool.serverLabel === label)) {
      fail(
        'tool_choice.server_label',
        typeof label === 'string'
          ? `Invalid 'tool_choice.server_label': no mcp tool with server_label '${label}' in 'tools'.`
          : `Missing required parameter: 'tool_choice.server_label'.`,
      );
    }
    const name = choice.name ?? undefined;
    if (name !== undefined && (typeof name !== 'string' || !name))
      fail('tool_choice.name', `Invalid 'tool_choice.name': expected a tool name.`);
    return { serverLabel: label, ...(name !== undefined ? { name } : {}) };
  }
  return fail(
    'tool_choice',
    `Unsupported value for 'tool_choice': Fathom accepts auto, none, required, {type: "function", name}, {type: "file_search"} and {type: "mcp", server_label, name}.`,
    'unsupported_parameter',
  );
}

function readFormat(text: ResponseCreateParams['text']): Record<string, unknown> | undefined {
  const format = text?.format ?? undefined;
  if (format === undefined) return undefined;
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

function readConversation(value: ResponseCreateParams['conversation']): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : value.id;
}

/**
 * Reads a `/v1/responses` body, as its declaration (`ResponseCreateParams`) admits it, into a
 * `ResponseRequest`, checking what the declaration cannot say: the rules across fields and each
 * tool's own fields (each error names its field). `null` means absent wherever OpenAI allows it.
 */
export function readResponseRequest(body: ResponseCreateParams, options: { mcpServers?: ReadonlySet<string> } = {}): ResponseRequest {
  const previousResponseId = body.previous_response_id ?? undefined;
  const conversationId = readConversation(body.conversation);
  if (previousResponseId && conversationId) {
    fail('conversation', `Mutually exclusive parameters: 'previous_response_id' and 'conversation'. Send only one of them.`);
  }
  const rawInput = body.input ?? undefined;
  if (rawInput === undefined && !previousResponseId && !conversationId) fail('input', `Missing required parameter: 'input'.`);
  const input = rawInput === undefined ? [] : normalizeInput(rawInput);
  const store = body.store ?? true;
  const background = body.background ?? false;
  if (background && !store)
    fail('background', `Invalid value for 'background': background responses must be stored; send store: true (the default).`);
  const truncation = body.truncation ?? 'disabled';
  const effort = body.reasoning?.effort ?? undefined;
  const instructions = body.instructions ?? null;
  const metadata = body.metadata ?? {};
  const { tools, fileSearch, mcp } = readTools(body.tools, options.mcpServers);
  const temperature = body.temperature ?? undefined;
  const topP = body.top_p ?? undefined;
  const maxOutputTokens = body.max_output_tokens ?? undefined;
  const maxToolCalls = body.max_tool_calls ?? undefined;
  const parallelToolCalls = body.parallel_tool_calls ?? true;
  const choice = readToolChoice(body.tool_choice, mcp);
  const mcpToolChoice = typeof choice === 'object' && 'serverLabel' in choice ? choice : undefined;
  const user = body.user ?? body.safety_identifier ?? undefined;
  return {
    model: body.model,
    input,
    instructions,
    tools,
    fileSearch,
    mcp,
    toolChoice: mcpToolChoice ? undefined : (choice as ChatToolChoice | undefined),
    ...(mcpToolChoice ? { mcpToolChoice } : {}),
    temperature,
    topP,
    maxOutputTokens,
    maxToolCalls,
    responseFormat: readFormat(body.text),
    reasoningEffort: effort,
    parallelToolCalls,
    user,
    truncation,
    store,
    background,
    stream: body.stream ?? false,
    previousResponseId,
    conversationId,
    include: body.include ?? [],
    metadata,
    echo: {
      instructions,
      max_output_tokens: maxOutputTokens ?? null,
      max_tool_calls: maxToolCalls ?? null,
      metadata,
      parallel_tool_calls: parallelToolCalls,
      temperature: temperature ?? null,
      top_p: topP ?? null,
      tool_choice: body.tool_choice ?? 'auto',
      tools: echoTools(body.tools),
      text: body.text ?? { format: { type: 'text' } },
      reasoning: { effort: effort ?? null, summary: body.reasoning?.summary ?? null },
      truncation,
      store,
      background,
      // Optional, not nullable, in the SDK's Response: absent when the request named no user.
      ...(user !== undefined ? { user } : {}),
      safety_identifier: body.safety_identifier ?? null,
      prompt_cache_key: body.prompt_cache_key ?? null,
      service_tier: body.service_tier ?? 'default',
      top_logprobs: body.top_logprobs ?? 0,
    },
  };
}

/** The request's tools as the response echoes (and stores) them: an `mcp` tool without its headers and authorization. */
function echoTools(tools: unknown): unknown {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) => (isObject(tool) && tool.type === 'mcp' ? echoMcpTool(tool) : tool));
}

/**
 * The request as a background response stores it: the `mcp` tools' headers left out (kept in memory
 * only), each such tool marked `withheldHeaders` so a process without them knows not to call its server.
 */
export function withoutMcpSecrets(request: ResponseRequest): ResponseRequest {
  if (!request.mcp.length) return request;
  return {
    ...request,
    mcp: request.mcp.map((tool) => ({ ...tool, headers: {}, ...(hasMcpSecrets(tool) ? { withheldHeaders: true } : {}) })),
  };
}

/** Whether an `mcp` tool of a request carries headers or `authorization` (secrets held in memory only). */
export function hasMcpSecrets(tool: McpToolSettings): boolean {
  return Object.keys(tool.headers).length > 0;
}
