import { ServiceUnavailableError } from '../../errors';
import { newId, nowSeconds, randomToken } from '../../internal/ids';
import type { SearchHit, StoreSearcher } from '../../vector';
import type { ChatAdapterContract, ChatMessage, ChatStreamPart, ChatToolCall, ChatToolDefinition } from '../types';
import type { ResponsesCall } from './responses-request';

/** What the Responses mapping needs: the chat adapter and Fathom's document search. */
export interface ResponsesDeps {
  chat: ChatAdapterContract;
  searcher?: StoreSearcher;
}

export interface ResponsesRunOptions {
  accountId: string;
  signal?: AbortSignal;
}

/** One Responses stream event: `type` doubles as the SSE event name. */
export type ResponsesEvent = { type: string; [key: string]: unknown };

/** How long a response with file_search waits for its stores' files still being ingested, ms. */
export const FILE_SEARCH_INGESTION_WAIT_MS = 60_000;

/** Model turns that may call `file_search` before the model must answer. */
export const MAX_FILE_SEARCH_ROUNDS = 4;

const FILE_SEARCH_FUNCTION: ChatToolDefinition = {
  type: 'function',
  function: {
    name: 'file_search',
    description: "Search the user's documents (the attached vector stores). Returns the most relevant passages with their file names.",
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
    return typeof parsed.query === 'string'
      ? parsed.query
      : Array.isArray(parsed.queries)
        ? parsed.queries.join(' ')
        : call.function.arguments;
  } catch {
    return call.function.arguments;
  }
}

function passages(hits: SearchHit[]): string {
  if (!hits.length) return 'No results found.';
  return JSON.stringify(
    hits.map((hit) => ({
      file_id: hit.file_id,
      filename: hit.filename,
      score: Number(hit.score.toFixed(4)),
      text: hit.content.map((part) => part.text).join('\n'),
    })),
  );
}

/**
 * Runs a `/v1/responses` call over the ChatAdapter and yields its stream events, ending with
 * `response.completed`. The hosted `file_search` tool is declared to the model as a function and
 * executed here with Fathom's search, looping until the model answers (or calls the caller's functions).
 * Nothing is yielded before the first model turn answers, so its errors can still become HTTP statuses.
 */
export async function* runResponse(deps: ResponsesDeps, call: ResponsesCall, options: ResponsesRunOptions): AsyncGenerator<ResponsesEvent> {
  if (call.fileSearch && !deps.searcher)
    throw new ServiceUnavailableError('file_search is not available: document search is not configured on this installation.');
  // Checks the stores belong to the account (404 before anything is streamed) and lets ingestion finish.
  if (call.fileSearch)
    await deps.searcher!.waitForIngestion(options.accountId, call.fileSearch.vectorStoreIds, FILE_SEARCH_INGESTION_WAIT_MS);
  const response: Record<string, any> = {
    id: newId('resp_'),
    object: 'response',
    created_at: nowSeconds(),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    model: call.chat.model,
    output: [],
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    truncation: 'disabled',
    usage: null,
    ...call.echo,
  };
  const output: Record<string, any>[] = response.output;
  const usage = { input_tokens: 0, output_tokens: 0 };
  const messages: ChatMessage[] = [...call.chat.messages];
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): ResponsesEvent => ({ type, sequence_number: sequence++, ...fields });

  for (let round = 0; ; round++) {
    const searching = call.fileSearch && deps.searcher && round < MAX_FILE_SEARCH_ROUNDS;
    const tools = [...(call.chat.tools ?? []), ...(searching ? [FILE_SEARCH_FUNCTION] : [])];
    const iterator = deps.chat
      .stream(
        {
          ...call.chat,
          messages,
          tools: tools.length ? tools : undefined,
          tool_choice: round > 0 && call.chat.tool_choice !== 'none' ? 'auto' : call.chat.tool_choice,
        },
        options,
      )
      [Symbol.asyncIterator]();
    let next = await iterator.next();
    if (round === 0) {
      yield event('response.created', { response: { ...response, output: [] } });
      yield event('response.in_progress', { response: { ...response, output: [] } });
    }
    let message: Record<string, any> | undefined;
    let text = '';
    const calls: ChatToolCall[] = [];
    for (; !next.done; next = await iterator.next()) {
      const part: ChatStreamPart = next.value;
      if (part.type === 'text-delta') {
        if (!message) {
          message = { id: newId('msg_'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
          output.push(message);
          yield event('response.output_item.added', { output_index: output.length - 1, item: { ...message, content: [] } });
          yield event('response.content_part.added', {
            item_id: message.id,
            output_index: output.length - 1,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
        }
        text += part.text;
        yield event('response.output_text.delta', {
          item_id: message.id,
          output_index: output.indexOf(message),
          content_index: 0,
          delta: part.text,
          logprobs: [],
        });
      } else if (part.type === 'tool-call-delta') {
        const entry = (calls[part.index] ??= {
          id: part.id ?? `call_${randomToken(24)}`,
          type: 'function',
          function: { name: '', arguments: '' },
        });
        if (part.id) entry.id = part.id;
        if (part.name) entry.function.name += part.name;
        if (part.argumentsDelta) entry.function.arguments += part.argumentsDelta;
      } else {
        usage.input_tokens += part.usage?.prompt_tokens ?? 0;
        usage.output_tokens += part.usage?.completion_tokens ?? 0;
      }
    }
    if (message) {
      const index = output.indexOf(message);
      const content = { type: 'output_text', text, annotations: [], logprobs: [] };
      message.status = 'completed';
      message.content = [content];
      yield event('response.output_text.done', { item_id: message.id, output_index: index, content_index: 0, text, logprobs: [] });
      yield event('response.content_part.done', { item_id: message.id, output_index: index, content_index: 0, part: content });
      yield event('response.output_item.done', { output_index: index, item: message });
    }
    const toolCalls = calls.filter(Boolean);
    const searches = searching ? toolCalls.filter((entry) => entry.function.name === 'file_search') : [];
    const functions = toolCalls.filter((entry) => !searches.includes(entry));
    if (searches.length) {
      messages.push({ role: 'assistant', content: text || null, tool_calls: searches });
      for (const search of searches) {
        const query = queryOf(search);
        const item: Record<string, any> = {
          id: newId('fs_'),
          type: 'file_search_call',
          status: 'in_progress',
          queries: [query],
          results: null,
        };
        output.push(item);
        const index = output.length - 1;
        yield event('response.output_item.added', { output_index: index, item: { ...item } });
        yield event('response.file_search_call.in_progress', { output_index: index, item_id: item.id });
        yield event('response.file_search_call.searching', { output_index: index, item_id: item.id });
        const hits = await deps.searcher!.search(options.accountId, call.fileSearch!.vectorStoreIds, { ...call.fileSearch!.search, query });
        item.status = 'completed';
        if (call.includeResults) {
          item.results = hits.map((hit) => ({
            file_id: hit.file_id,
            filename: hit.filename,
            score: hit.score,
            text: hit.content.map((part) => part.text).join('\n'),
            attributes: hit.attributes ?? {},
          }));
        }
        yield event('response.file_search_call.completed', { output_index: index, item_id: item.id });
        yield event('response.output_item.done', { output_index: index, item });
        messages.push({ role: 'tool', tool_call_id: search.id, content: passages(hits) });
      }
    }
    for (const fn of functions) {
      const item = {
        id: `fc_${randomToken(24)}`,
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
    }
    if (!searches.length || functions.length) break;
  }
  response.status = 'completed';
  response.usage = {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
  response.output_text = output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content.map((part: { text: string }) => part.text))
    .join('');
  yield event('response.completed', { response });
}

/** Runs a non-streaming `/v1/responses` call: the final response object. */
export async function createResponse(
  deps: ResponsesDeps,
  call: ResponsesCall,
  options: ResponsesRunOptions,
): Promise<Record<string, unknown>> {
  let last: ResponsesEvent | undefined;
  for await (const event of runResponse(deps, call, options)) last = event;
  return last!.response as Record<string, unknown>;
}
