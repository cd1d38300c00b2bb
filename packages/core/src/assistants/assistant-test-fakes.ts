// In-memory fakes of the contracts the runner depends on (ChatAdapterContract, StoreSearcher), for its tests.
import { Ajv } from 'ajv';
import { describeSchemaIssues, type SchemaIssue } from '../errors/describe-schema-issues';
import type { ChatAdapterContract, ChatRequest, ChatResult, ChatStreamPart, ChatUsage, FinishReason } from '../models/types';
import type { SearchHit, StoreSearcher, StoreSearchOptions } from '../vector/types';
import type { AssistantsCapability } from './create-assistants';
import type { AssistantStreamEvent, Run } from './types';
import { AssistantStreamEvent as StreamEventSchema } from './wire/stream-events';

/** One scripted model turn of the in-memory chat fake. */
export interface Turn {
  content?: string;
  toolCalls?: Array<{ name: string; arguments: unknown }>;
  error?: Error;
  /** Never answer (until the call is aborted). */
  hang?: boolean;
  /** Stream the content, then never finish (until the call is aborted). */
  stall?: boolean;
  /** Default: `tool_calls` with tool calls, else `stop`. */
  finishReason?: FinishReason;
  /** Default: 10 prompt and 5 completion tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number };
}

/** An in-memory ChatAdapterContract answering each request with the script's next turn. */
export function fakeChat(script: (request: ChatRequest, index: number) => Turn) {
  const requests: ChatRequest[] = [];
  const calls = { complete: 0, stream: 0 };
  const next = async (request: ChatRequest, signal?: AbortSignal): Promise<Turn> => {
    const turn = script(structuredClone(request), requests.length);
    requests.push(structuredClone(request));
    if (turn.hang) {
      await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    }
    if (turn.error) throw turn.error;
    return turn;
  };
  const usageOf = (turn: Turn): ChatUsage => {
    const { prompt_tokens, completion_tokens } = turn.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
  };
  const finishOf = (turn: Turn): FinishReason => turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
  const toolCalls = (turn: Turn) =>
    (turn.toolCalls ?? []).map((call, index) => ({
      id: `call_${requests.length}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
  const chat: ChatAdapterContract = {
    async complete(request, options): Promise<ChatResult> {
      calls.complete++;
      const turn = await next(request, options?.signal);
      const tool_calls = toolCalls(turn);
      return {
        id: 'chatcmpl-x',
        model: request.model,
        message: { role: 'assistant', content: turn.content ?? null, ...(tool_calls.length ? { tool_calls } : {}) },
        finishReason: finishOf(turn),
        usage: usageOf(turn),
      };
    },
    async *stream(request, options): AsyncIterable<ChatStreamPart> {
      calls.stream++;
      const turn = await next(request, options?.signal);
      for (const word of (turn.content ?? '').split(/(?<= )/)) if (word) yield { type: 'text-delta', text: word };
      if (turn.stall) {
        const signal = options?.signal;
        await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      }
      for (const [index, call] of toolCalls(turn).entries()) {
        yield { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments };
      }
      yield { type: 'finish', finishReason: finishOf(turn), usage: usageOf(turn) };
    },
  };
  return { chat, requests, calls };
}

/** An in-memory StoreSearcher: each store holds hits; search merges the stores, best first. */
export function fakeSearcher(stores: Record<string, SearchHit[]>) {
  const searches: Array<{ storeIds: string[]; options: StoreSearchOptions }> = [];
  const waits: Array<{ storeIds: string[]; timeoutMs: number }> = [];
  const searcher: StoreSearcher = {
    async search(_accountId, storeIds, options) {
      searches.push({ storeIds: [...storeIds], options });
      return storeIds
        .flatMap((id) => stores[id] ?? [])
        .filter((hit) => hit.score >= (options.scoreThreshold ?? 0))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.maxNumResults ?? 10);
    },
    async waitForIngestion(_accountId, storeIds, timeoutMs) {
      waits.push({ storeIds: [...storeIds], timeoutMs });
      return true;
    },
  };
  return { searcher, searches, waits };
}

export const hit = (file: string, score: number, text = `text of ${file}`): SearchHit => ({
  file_id: `file-${file}`,
  filename: `${file}.md`,
  score,
  attributes: null,
  content: [{ type: 'text', text }],
});

/** Model that searches once, then answers citing the first marker it was given. */
export const searchThenCite = (request: ChatRequest): Turn => {
  const last = request.messages[request.messages.length - 1]!;
  if (last.role !== 'tool') return { toolCalls: [{ name: 'file_search', arguments: { query: 'refund policy' } }] };
  const marker = String(last.content).match(/【\d+:\d+†[^】]*】/)?.[0] ?? '';
  return { content: `Refunds take 14 days${marker}.` };
};

export async function waitFor(
  runner: AssistantsCapability,
  accountId: string,
  run: Run,
  statuses: string[] = ['completed', 'failed', 'cancelled', 'requires_action', 'expired', 'incomplete'],
): Promise<Run> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const current = await runner.threads.runs.retrieve(accountId, run.thread_id, run.id);
    if (statuses.includes(current.status)) return current;
    if (Date.now() > deadline) throw new Error(`run ${run.id} stayed ${current.status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function collect(events: AsyncIterable<AssistantStreamEvent>): Promise<AssistantStreamEvent[]> {
  const out: AssistantStreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

// The options the HTTP test suite checks answers with (packages/http/src/validators.ts).
const checkEvent = new Ajv({ allErrors: true, verbose: true, discriminator: true, allowUnionTypes: true, addUsedSchema: false }).compile(
  StreamEventSchema,
);

/** The events that do not match the declared `AssistantStreamEvent` schema, each with what is wrong: empty when all match. */
export function undeclaredEvents(events: readonly AssistantStreamEvent[]): string[] {
  return events.flatMap(({ event, data }) =>
    checkEvent({ event, data }) ? [] : [`${event}: ${describeSchemaIssues((checkEvent.errors ?? []) as SchemaIssue[]).message}`],
  );
}
