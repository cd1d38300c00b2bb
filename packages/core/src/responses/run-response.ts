import { ServiceUnavailableError } from '../errors';
import { newId } from '../internal/ids';
import type { ChatAdapterContract, ChatMessage, ChatToolCall, ChatToolDefinition, ChatUsage } from '../models/types';
import { citationMarker, type SearchHit, type StoreSearcher } from '../vector';
import { CitationStream } from './citation-stream';
import type { StoredItem } from './items';
import { MAX_MCP_CALLS, type McpDeps, McpRun } from './mcp-run';
import type { ResponseRequest } from './read-request';
import { inSpan } from '../observability/tracing';
import { type PlannedCall, runToolLoop } from '../turns';

/** What running a response needs: the chat adapter and Fathom's document search. */
export interface RunDeps {
  chat: ChatAdapterContract;
  searcher?: StoreSearcher;
  /** The `mcp` tool's egress fetch and operator servers; without it a request with an mcp tool answers 400. */
  mcp?: McpDeps;
}

/** One Responses stream event: `type` doubles as the SSE event name; `sequence_number` orders them. */
export type ResponsesEvent = { type: string; sequence_number: number; [key: string]: unknown };

/** A response object as the API answers it (`Response` in the SDK). */
export type ResponseObject = Record<string, unknown> & { id: string; status: string; output: StoredItem[] };

/** How long a response with file_search waits for its stores' files still being ingested, ms. */
export const FILE_SEARCH_INGESTION_WAIT_MS = 60_000;

/** Model turns of one response at most (hosted tool calls loop; this bounds a model that never stops). */
const MAX_ROUNDS = 32;

/** Model turns that may call `file_search` before the model must answer. */
export const MAX_FILE_SEARCH_ROUNDS = 4;

const FILE_SEARCH_FUNCTION: ChatToolDefinition = {
  type: 'function',
  function: {
    name: 'file_search',
    description:
      "Search the user's documents (the attached vector stores). Returns the most relevant passages, each starting with a " +
      'citation marker such as 【0:1†file.txt】: when your answer uses a passage, copy its marker right after the statement it supports.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for, in natural language.' } },
      required: ['query'],
    },
  },
};

function queryOf(call: ChatToolCall): string {
  try {
    const parsed = JSON.parse(call.function.arguments || '{}');
    if (typeof parsed.query === 'string') return parsed.query;
    if (Array.isArray(parsed.queries)) return parsed.queries.join(' ');
  } catch {
    // Not JSON: the arguments are the query.
  }
  return call.function.arguments;
}

/**
 * The output as the client sees it: `file_search_call.results` only when `include` asks for them (the
 * stored item always keeps them, so a later request that continues from it can replay them to the model).
 */
export function viewItem(item: StoredItem, include: readonly string[]): StoredItem {
  if (item.type === 'file_search_call' && !include.includes('file_search_call.results')) return { ...item, results: null };
  return item;
}

export interface RunOptions {
  accountId: string;
  signal?: AbortSignal;
  /** Sequence number of the first event; default 0. */
  firstSequence?: number;
  /** The context's items and where the request's input starts in them (MCP listings and approvals). */
  context?: { items: readonly StoredItem[]; firstInput: number };
}

/**
 * Runs one response over the ChatAdapter and yields its stream events, ending with `response.completed`
 * (or `response.incomplete` when a model turn stopped for length). The hosted `file_search` tool is
 * declared to the model as a function and executed here with Fathom's search, looping until the model
 * answers or calls the caller's functions; the answer's citation markers become `file_citation`
 * annotations. Nothing is yielded before the first model turn answers, so its errors can still become
 * HTTP statuses. `response` is filled in place: status, output, usage, output_text.
 */
export async function* runResponse(
  deps: RunDeps,
  request: ResponseRequest,
  messages: ChatMessage[],
  response: ResponseObject,
  options: RunOptions,
): AsyncGenerator<ResponsesEvent> {
  // MCP servers are listed (and approvals checked) before the first model turn: the tools are part of it.
  const mcp = await McpRun.prepare(deps.mcp, request.mcp, options.context ?? { items: [], firstInput: 0 }, {
    maxCalls: Math.min(request.maxToolCalls ?? MAX_MCP_CALLS, MAX_MCP_CALLS),
    signal: options.signal,
    reservedNames: [...request.tools.map((tool) => tool.function.name), 'file_search'],
    toolChoice: request.mcpToolChoice,
  });
  try {
    yield* runTurns(deps, request, messages, response, options, mcp);
  } finally {
    await mcp?.close();
  }
}

async function* runTurns(
  deps: RunDeps,
  request: ResponseRequest,
  messages: ChatMessage[],
  response: ResponseObject,
  options: RunOptions,
  mcp: McpRun | undefined,
): AsyncGenerator<ResponsesEvent> {
  const { fileSearch } = request;
  if (fileSearch && !deps.searcher) {
    throw new ServiceUnavailableError('file_search is not available: document search is not configured on this installation.');
  }
  // Checks the stores belong to the account (404 before anything is streamed) and lets ingestion finish.
  if (fileSearch) await deps.searcher!.waitForIngestion(options.accountId, fileSearch.vectorStoreIds, FILE_SEARCH_INGESTION_WAIT_MS);
  const output = response.output;
  const usage = { input_tokens: 0, output_tokens: 0 };
  const context: ChatMessage[] = [...messages];
  const passages = new Map<string, { file_id: string; filename: string }>();
  const include = request.include;
  let sequence = options.firstSequence ?? 0;
  let searchesLeft = Math.min(request.maxToolCalls ?? Number.POSITIVE_INFINITY, MAX_FILE_SEARCH_ROUNDS * 8);
  const event = (type: string, fields: Record<string, unknown>): ResponsesEvent => ({ type, sequence_number: sequence++, ...fields });
  const snapshot = () => ({ ...response, output: output.map((item) => viewItem(item, include)) });

  // Listings and approved calls run before the first model turn; their events follow `response.created`.
  const startEvents: Array<[string, Record<string, unknown>]> = [];
  const startOutput: StoredItem[] = [];
  if (mcp) {
    const start = mcp.emitStart((type, fields) => {
      startEvents.push([type, fields]);
      return { type, sequence_number: -1, ...fields };
    }, startOutput);
    let step = await start.next();
    while (!step.done) step = await start.next();
    if (step.value.length) {
      context.push({ role: 'assistant', content: null, tool_calls: step.value.map((result) => result.call) });
      for (const result of step.value) context.push({ role: 'tool', tool_call_id: result.call.id, content: result.content });
    }
  }

  const functionCallItem = function* (fn: ChatToolCall) {
    const item: StoredItem = {
      id: newId('fc_'),
      type: 'function_call',
      status: 'completed',
      call_id: fn.id,
      name: fn.function.name,
      arguments: fn.function.arguments,
    };
    output.push(item);
    const index = output.length - 1;
    yield event('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } });
    yield event('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments });
    yield event('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      name: item.name,
      arguments: item.arguments,
    });
    yield event('response.output_item.done', { output_index: index, item });
  };
  let searching = false;
  let started = false;
  /** `response.created` and what preceded the first turn, once the first model turn answers (its errors can still become HTTP statuses). */
  const start = function* () {
    if (started) return;
    started = true;
    response.status = 'in_progress';
    yield event('response.created', { response: snapshot() });
    yield event('response.in_progress', { response: snapshot() });
    output.push(...startOutput);
    for (const [type, fields] of startEvents) yield event(type, fields);
  };
  let message: StoredItem | undefined;
  let messageIndex = -1;
  let text = '';
  let citations = new CitationStream(passages);
  const emitText = function* (piece: string) {
    if (!piece) return;
    if (!message) {
      message = { id: newId('msg_'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      output.push(message);
      messageIndex = output.length - 1;
      yield event('response.output_item.added', { output_index: messageIndex, item: { ...message, content: [] } });
      yield event('response.content_part.added', {
        item_id: message.id,
        output_index: messageIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    text += piece;
    yield event('response.output_text.delta', {
      item_id: message.id,
      output_index: messageIndex,
      content_index: 0,
      delta: piece,
      logprobs: [],
    });
  };
  const search = (call: ChatToolCall) =>
    async function* (): AsyncGenerator<ResponsesEvent, string> {
      searchesLeft--;
      const turn = output.filter((item) => item.type === 'file_search_call').length;
      const query = queryOf(call);
      const item: StoredItem = { id: newId('fs_'), type: 'file_search_call', status: 'in_progress', queries: [query], results: null };
      output.push(item);
      const index = output.length - 1;
      yield event('response.output_item.added', { output_index: index, item: { ...item } });
      yield event('response.file_search_call.in_progress', { output_index: index, item_id: item.id });
      yield event('response.file_search_call.searching', { output_index: index, item_id: item.id });
      const hits = await inSpan(
        'execute_tool file_search',
        { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'file_search', 'gen_ai.tool.call.id': item.id },
        () => deps.searcher!.search(options.accountId, fileSearch!.vectorStoreIds, { ...fileSearch!.search, query }),
      );
      item.status = 'completed';
      item.results = hits.map((hit) => ({
        file_id: hit.file_id,
        filename: hit.filename,
        score: hit.score,
        text: hit.content.map((piece) => piece.text).join('\n'),
        attributes: hit.attributes ?? {},
      }));
      hits.forEach((hit, at) => passages.set(`${turn}:${at}`, { file_id: hit.file_id, filename: hit.filename }));
      yield event('response.file_search_call.completed', { output_index: index, item_id: item.id });
      yield event('response.output_item.done', { output_index: index, item: viewItem(item, include) });
      return renderPassages(turn, hits);
    };

  const loop = runToolLoop<ResponsesEvent>({
    messages: context,
    request: (round) => {
      searching = fileSearch !== undefined && round < MAX_FILE_SEARCH_ROUNDS && searchesLeft > 0;
      // tool_choice {type: "mcp"} forces the first turn only, as a function choice does.
      const forced = round === 0 ? mcp?.forced : undefined;
      const tools = forced?.tools ?? [...request.tools, ...(searching ? [FILE_SEARCH_FUNCTION] : []), ...(mcp?.functions ?? [])];
      return {
        model: request.model,
        messages: context,
        ...(tools.length ? { tools } : {}),
        tool_choice: forced?.choice ?? (round > 0 && request.toolChoice !== 'none' ? 'auto' : request.toolChoice),
        temperature: request.temperature,
        top_p: request.topP,
        max_tokens: request.maxOutputTokens,
        ...(request.responseFormat ? { response_format: request.responseFormat } : {}),
        user: request.user,
        ...(request.reasoningEffort || !request.parallelToolCalls
          ? {
              extra: {
                ...(request.reasoningEffort ? { reasoning_effort: request.reasoningEffort } : {}),
                ...(!request.parallelToolCalls && tools.length ? { parallel_tool_calls: false } : {}),
              },
            }
          : {}),
      };
    },
    model: (chatRequest) => deps.chat.stream(chatRequest, { ...options, api: 'responses' }),
    // MCP calls first, then the searches (at most the searches left), then the client's functions.
    tools: (step) => {
      const isSearch = (entry: ChatToolCall) => searching && entry.function.name === 'file_search';
      const searches = new Set(step.toolCalls.filter(isSearch).slice(0, searchesLeft));
      const mcpCalls = mcp ? step.toolCalls.filter((entry) => !isSearch(entry) && mcp.owns(entry.function.name)) : [];
      return [
        ...mcpCalls.map((call) => ({ call, action: mcp!.action(event, output, call) })),
        ...step.toolCalls.filter(isSearch).map(
          (call): PlannedCall<ResponsesEvent> => ({
            call,
            action: searches.has(call) ? { type: 'run', run: search(call) } : { type: 'drop' },
          }),
        ),
        ...step.toolCalls
          .filter((entry) => !isSearch(entry) && !mcpCalls.includes(entry))
          .map((call): PlannedCall<ResponsesEvent> => ({ call, action: { type: 'client' } })),
      ];
    },
    stopWhen: (step) => step.finishReason === 'length',
    maxTurns: MAX_ROUNDS + 1,
    signal: options.signal,
  });
  let incomplete = false;
  for (let next = await loop.next(); !next.done; next = await loop.next()) {
    const step = next.value;
    if (step.type === 'part' || step.type === 'turn-finish') yield* start();
    if (step.type === 'event') yield step.event;
    else if (step.type === 'turn-start') {
      [message, messageIndex, text, citations] = [undefined, -1, '', new CitationStream(passages)];
    } else if (step.type === 'part' && step.part.type === 'text-delta') {
      const { text: piece, annotations } = citations.push(step.part.text);
      yield* emitText(piece);
      for (const annotation of annotations) {
        yield event('response.output_text.annotation.added', {
          item_id: message!.id,
          output_index: messageIndex,
          content_index: 0,
          annotation_index: citations.annotations.indexOf(annotation),
          annotation,
        });
      }
    } else if (step.type === 'part' && step.part.type === 'finish') {
      addUsage(usage, step.part.usage);
    } else if (step.type === 'turn-finish') {
      yield* emitText(citations.end());
      const cut = step.step.finishReason === 'length';
      incomplete = cut;
      if (message) {
        const content = { type: 'output_text', text, annotations: citations.annotations, logprobs: [] };
        message.status = cut ? 'incomplete' : 'completed';
        message.content = [content];
        yield event('response.output_text.done', { item_id: message.id, output_index: messageIndex, content_index: 0, text, logprobs: [] });
        yield event('response.content_part.done', { item_id: message.id, output_index: messageIndex, content_index: 0, part: content });
        yield event('response.output_item.done', { output_index: messageIndex, item: message });
      }
    } else if (step.type === 'round-finish') {
      // The client's functions: the response ends with them, for the client to run.
      for (const fn of step.pending) yield* functionCallItem(fn);
    }
  }
  response.status = incomplete ? 'incomplete' : 'completed';
  response.incomplete_details = incomplete ? { reason: 'max_output_tokens' } : null;
  response.completed_at = Math.floor(Date.now() / 1000);
  response.usage = {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
  response.output_text = outputText(output);
  yield event(incomplete ? 'response.incomplete' : 'response.completed', { response: snapshot() });
}

function addUsage(total: { input_tokens: number; output_tokens: number }, usage: ChatUsage | undefined): void {
  total.input_tokens += usage?.prompt_tokens ?? 0;
  total.output_tokens += usage?.completion_tokens ?? 0;
}

/** A response object as the client sees it: output items as `include` asks, `output_text` filled. */
export function viewResponse(response: ResponseObject, include: readonly string[]): ResponseObject {
  const output = response.output.map((item) => viewItem(item, include));
  return { ...response, output, output_text: outputText(output) };
}

/** The text of the assistant messages of an output, as the SDK's `output_text` convenience field. */
export function outputText(output: readonly StoredItem[]): string {
  return output
    .filter((item) => item.type === 'message')
    .flatMap((item) =>
      (item.content as Array<{ type: string; text?: string }>).filter((part) => part.type === 'output_text').map((part) => part.text ?? ''),
    )
    .join('');
}

function renderPassages(turn: number, hits: SearchHit[]): string {
  if (!hits.length) return 'No results found.';
  return hits
    .map((hit, index) => {
      const text = hit.content.map((part) => part.text).join('\n');
      return `${citationMarker(turn, index, hit.filename)} (file: ${hit.filename}, score: ${hit.score.toFixed(3)})\n${text}`;
    })
    .join('\n\n');
}
