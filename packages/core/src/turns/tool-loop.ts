import { ToolCallAssembler } from '../models/tool-call-assembler';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, ChatToolCall, ChatUsage, FinishReason } from '../models/types';

/** One model turn, assembled from its stream parts (tool names and arguments joined, ids stable). */
export interface ModelStep {
  /** 0 for the first turn of this loop (a resumed loop's recorded turn included). */
  turn: number;
  /** The text as the model wrote it. */
  text: string;
  toolCalls: ChatToolCall[];
  usage?: ChatUsage;
  finishReason?: FinishReason;
}

/**
 * What the loop does with one tool call the model asked for; the caller decides, per call:
 * - `run`: executed here, its result goes back to the model (a generator's yields are the caller's own
 *   events, passed on as `{ type: 'event' }`: items, progress, spans around the call are the caller's);
 * - `answer`: answered without running (an unknown tool, arguments that do not parse, a limit reached);
 * - `client`: a function the client runs: the round ends and the loop stops with the pending calls
 *   (`requires_action`); the caller resumes later with their outputs in the messages;
 * - `wait`: the call waits for the client's approval (an MCP approval request): the loop stops after the
 *   round; `announce` yields the events that tell the client;
 * - `drop`: neither answered nor reported (a call past a per-request limit of a hosted tool).
 */
export type ToolAction<E> =
  | { type: 'run'; run: (signal: AbortSignal | undefined) => Promise<string> | AsyncGenerator<E, string> }
  | { type: 'answer'; output: string }
  | { type: 'client' }
  | { type: 'wait'; announce?: () => AsyncGenerator<E, void> }
  | { type: 'drop' };

/** A tool call and what to do with it; the loop acts on them in the order the caller gives. */
export interface PlannedCall<E> {
  call: ChatToolCall;
  action: ToolAction<E>;
}

/** The loop's steps, which each caller maps to its own objects and events (awaiting between them is back-pressure). */
export type ToolLoopEvent<E> =
  | { type: 'turn-start'; turn: number; request: ChatRequest }
  /** A stream part of the model turn as it arrives (text deltas; tool-call deltas are assembled by the loop). */
  | { type: 'part'; turn: number; part: ChatStreamPart }
  | { type: 'turn-finish'; step: ModelStep }
  | { type: 'tool-call-start'; turn: number; call: ChatToolCall }
  | { type: 'tool-call-finish'; turn: number; call: ChatToolCall; output: string; error: boolean }
  /** The round's results have joined `messages`; `toolRounds` counts this one. */
  | { type: 'round-finish'; step: ModelStep; results: ChatToolCallResult[]; pending: ChatToolCall[]; toolRounds: number }
  | { type: 'event'; event: E };

export interface ChatToolCallResult {
  call: ChatToolCall;
  content: string;
}

/** Why the loop ended. */
export type ToolLoopStop =
  /** The model answered without tool calls. */
  | 'done'
  /** `stopWhen` said so after a turn (a cut answer, for instance). */
  | 'stopped'
  /** `request` had no next request (a token budget spent): `stopReason` says why. */
  | 'exhausted'
  /** Functions for the client to run: `pending` holds them. */
  | 'client'
  /** A call waits for the client's approval. */
  | 'wait'
  /** The model asked for tools although `maxToolRounds` rounds were done; its calls did not run. */
  | 'max-tool-rounds'
  /** `maxTurns` model turns were made, the last one's tools ran. */
  | 'max-turns'
  /** A round answered none of its calls (all dropped): nothing new to give the model. */
  | 'unanswered';

export interface ToolLoopResult {
  reason: ToolLoopStop;
  /** With `exhausted`: what `request` gave as the reason. */
  stopReason?: string;
  /** The last model turn, if any. */
  last?: ModelStep;
  /** With `client`: the calls the client must answer. */
  pending: ChatToolCall[];
  /** Rounds of tool calls done, `toolRoundsDone` included. */
  toolRounds: number;
}

export interface ToolLoopOptions<E> {
  /** The conversation, appended in place: each round's assistant message (its answered and client calls) and tool results. */
  messages: ChatMessage[];
  /** The next model request (from `messages`), or `{ exhausted }` when none can be made (a token budget spent). */
  request(turn: number): ChatRequest | { exhausted: string } | Promise<ChatRequest | { exhausted: string }>;
  /**
   * The model call: the seam where charging (the chat adapter's meter) and the model span happen. Streams
   * parts; `completionAsParts` turns a non-streaming answer into the same parts.
   */
  model(request: ChatRequest, turn: number): AsyncIterable<ChatStreamPart>;
  /** What to do with the calls of a turn, in the order to act on them (a generator may yield the caller's events). */
  tools(step: ModelStep): PlannedCall<E>[] | Promise<PlannedCall<E>[]> | AsyncGenerator<E, PlannedCall<E>[]>;
  /** Tool rounds at most: a turn asking for tools after these ends the loop with `max-tool-rounds`. */
  maxToolRounds?: number;
  /** Model turns at most: the tools of the last one run, then the loop ends with `max-turns`. */
  maxTurns?: number;
  /** Ends the loop after a turn (before its tools), e.g. an answer cut by its token limit. */
  stopWhen?(step: ModelStep): boolean;
  /** A `run` that throws becomes this text for the model (`error: true` on its finish event); without it the error ends the loop. */
  toolError?(error: unknown, call: ChatToolCall): string;
  /** Checked before every model turn, round and tool call, and after each turn: an abort throws its reason. */
  signal?: AbortSignal;
  /** Rounds already done by earlier attempts (a run resumed from storage). */
  toolRoundsDone?: number;
  /** A model turn recorded earlier whose tools did not run yet: the loop starts with its tools. */
  resume?: ModelStep;
}

/**
 * The one model loop of assistants, Responses and agents: model turn → tool calls → results → next
 * turn, with limits, cancellation and step events, as the AI SDK's `streamText` steps. Tool calls are
 * assembled from the stream by the one `ToolCallAssembler`. The loop knows nothing of runs, responses
 * or agent nodes: each caller maps the events to its own objects, and what sits around a step (writes
 * to storage, charging, spans, MCP approvals, `requires_action`) lives in the seams above.
 */
export async function* runToolLoop<E>(options: ToolLoopOptions<E>): AsyncGenerator<ToolLoopEvent<E>, ToolLoopResult> {
  const { messages, signal } = options;
  const maxToolRounds = options.maxToolRounds ?? Number.POSITIVE_INFINITY;
  const maxTurns = options.maxTurns ?? Number.POSITIVE_INFINITY;
  let toolRounds = options.toolRoundsDone ?? 0;
  let last: ModelStep | undefined = options.resume;
  const end = (reason: ToolLoopStop, extra: Partial<ToolLoopResult> = {}): ToolLoopResult => ({
    reason,
    last,
    pending: [],
    toolRounds,
    ...extra,
  });
  for (let turn = 0; ; turn++) {
    let step: ModelStep;
    if (turn === 0 && options.resume) step = options.resume;
    else {
      signal?.throwIfAborted();
      const request = await options.request(turn);
      if ('exhausted' in request) return end('exhausted', { stopReason: request.exhausted });
      yield { type: 'turn-start', turn, request };
      step = yield* modelTurn(options, request, turn);
      last = step;
      signal?.throwIfAborted();
      yield { type: 'turn-finish', step };
      if (options.stopWhen?.(step)) return end('stopped');
    }
    if (step.toolCalls.length === 0) return end('done');
    if (toolRounds >= maxToolRounds) return end('max-tool-rounds');

    signal?.throwIfAborted();
    const planned = yield* events(options.tools(step));
    const results: ChatToolCallResult[] = [];
    const pending: ChatToolCall[] = [];
    let waiting = false;
    for (const { call, action } of planned) {
      if (action.type === 'drop') continue;
      if (action.type === 'client') {
        pending.push(call);
        continue;
      }
      if (action.type === 'wait') {
        waiting = true;
        if (action.announce) yield* events(action.announce());
        continue;
      }
      signal?.throwIfAborted();
      yield { type: 'tool-call-start', turn, call };
      let output: string;
      let error = false;
      if (action.type === 'answer') output = action.output;
      else {
        try {
          output = yield* events(action.run(signal));
        } catch (thrown) {
          if (signal?.aborted || !options.toolError) throw thrown;
          output = options.toolError(thrown, call);
          error = true;
        }
      }
      yield { type: 'tool-call-finish', turn, call, output, error };
      results.push({ call, content: output });
    }
    const kept = new Set([...results.map((result) => result.call), ...pending]);
    const answered = step.toolCalls.filter((call) => kept.has(call));
    if (answered.length) messages.push({ role: 'assistant', content: step.text || null, tool_calls: answered });
    for (const result of results) messages.push({ role: 'tool', tool_call_id: result.call.id, content: result.content });
    toolRounds += 1;
    yield { type: 'round-finish', step, results, pending, toolRounds };
    if (pending.length) return end('client', { pending });
    if (waiting) return end('wait');
    if (!results.length) return end('unanswered');
    if (turn + 1 >= maxTurns) return end('max-turns');
  }
}

/** One model turn: its parts pass on as events while the tool calls are assembled. */
async function* modelTurn<E>(options: ToolLoopOptions<E>, request: ChatRequest, turn: number): AsyncGenerator<ToolLoopEvent<E>, ModelStep> {
  const calls = new ToolCallAssembler();
  const step: ModelStep = { turn, text: '', toolCalls: [] };
  for await (const part of options.model(request, turn)) {
    if (part.type === 'tool-call-delta') {
      calls.add(part);
      continue;
    }
    if (part.type === 'text-delta') step.text += part.text;
    else {
      step.usage = part.usage;
      step.finishReason = part.finishReason;
    }
    yield { type: 'part', turn, part };
  }
  step.toolCalls = calls.calls();
  return step;
}

/** A seam's answer: a generator's yields pass on as the caller's events; a value or promise as is. */
async function* events<E, T>(value: T | Promise<T> | AsyncGenerator<E, T>): AsyncGenerator<ToolLoopEvent<E>, T> {
  if (isGenerator<E, T>(value)) {
    for (let next = await value.next(); ; next = await value.next()) {
      if (next.done) return next.value;
      yield { type: 'event', event: next.value };
    }
  }
  return await value;
}

function isGenerator<E, T>(value: unknown): value is AsyncGenerator<E, T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value && 'next' in value;
}

/** A non-streaming answer, replayed as the parts a stream would have produced. */
export async function* completionAsParts(result: Promise<ChatResult>): AsyncGenerator<ChatStreamPart> {
  const answer = await result;
  if (answer.message.content) yield { type: 'text-delta', text: answer.message.content };
  for (const [index, call] of (answer.message.tool_calls ?? []).entries()) {
    yield { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments };
  }
  yield { type: 'finish', finishReason: answer.finishReason, usage: answer.usage };
}
