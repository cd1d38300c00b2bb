import { nowSeconds } from '../internal/ids';
import type { ChatStreamPart, ChatToolCall, ChatUsage } from '../models/types';
import { buildChatRequest } from './build-conversation';
import { annotateCitations } from './citations';
import { emitStep, type RunContext } from './run-context';
import type { Message, RunStep } from './types';

export interface ModelTurn {
  text: string;
  toolCalls: ChatToolCall[];
  usage?: ChatUsage;
}

/**
 * Asks the model for the next turn. Streams (`chat.stream`) when someone watches the run, so text
 * reaches them as `thread.message.delta`; otherwise one `chat.complete` call. Either way, text becomes
 * an assistant message (with its `message_creation` step) and citation markers become annotations.
 */
export async function runModelTurn(context: RunContext): Promise<ModelTurn> {
  const { deps, run, state, accountId, signal } = context;
  const request = buildChatRequest(run, deps.threads.allMessages(run.thread_id), state);
  const parts: AsyncIterable<ChatStreamPart> = deps.events.watching(run.id)
    ? deps.chat.stream(request, { signal, accountId })
    : completeAsParts(context, request);

  let message: Message | undefined;
  let step: RunStep | undefined;
  let text = '';
  let usage: ChatUsage | undefined;
  const calls = new Map<number, ChatToolCall>();
  for await (const part of parts) {
    if (part.type === 'text-delta') {
      if (!part.text) continue;
      if (!message) {
        message = deps.threads.createRunMessage(accountId, run.thread_id, run.assistant_id, run.id);
        step = deps.runs.createStep(accountId, run, { type: 'message_creation', message_creation: { message_id: message.id } });
        emitStep(context, 'created', step);
        emitStep(context, 'in_progress', step);
        deps.events.emit(run.id, 'thread.message.created', message);
        deps.events.emit(run.id, 'thread.message.in_progress', message);
      }
      text += part.text;
      deps.events.emit(run.id, 'thread.message.delta', {
        id: message.id,
        object: 'thread.message.delta',
        delta: { content: [{ index: 0, type: 'text', text: { value: part.text } }] },
      });
    } else if (part.type === 'tool-call-delta') {
      const call = calls.get(part.index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (part.id) call.id = part.id;
      if (part.name) call.function.name += part.name;
      if (part.argumentsDelta) call.function.arguments += part.argumentsDelta;
      calls.set(part.index, call);
    } else if (part.type === 'finish') {
      usage = part.usage;
    }
  }
  if (message && step) {
    const now = nowSeconds();
    message.content = [{ type: 'text', text: { value: text, annotations: annotateCitations(text, state.citations) } }];
    message.status = 'completed';
    message.completed_at = now;
    deps.threads.saveMessage(message);
    deps.events.emit(run.id, 'thread.message.completed', message);
    step.status = 'completed';
    step.completed_at = now;
    step.usage = usage ?? null;
    deps.runs.saveStep(step);
    emitStep(context, 'completed', step);
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({ ...call, id: call.id || `call_${run.id.slice(4)}_${state.toolRounds}_${index}` }));
  return { text, toolCalls, usage };
}

/** One non-streaming call, replayed as the parts a stream would have produced. */
async function* completeAsParts(
  context: RunContext,
  request: Parameters<RunContext['deps']['chat']['complete']>[0],
): AsyncIterable<ChatStreamPart> {
  const result = await context.deps.chat.complete(request, { signal: context.signal, accountId: context.accountId });
  if (result.message.content) yield { type: 'text-delta', text: result.message.content };
  for (const [index, call] of (result.message.tool_calls ?? []).entries()) {
    yield { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments };
  }
  yield { type: 'finish', finishReason: result.finishReason, usage: result.usage };
}
