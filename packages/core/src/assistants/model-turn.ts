import { nowSeconds } from '../internal/ids';
import { ToolCallAssembler } from '../models/tool-call-assembler';
import type { ChatRequest, ChatStreamPart, ChatToolCall, ChatUsage, FinishReason } from '../models/types';
import { annotateCitations } from './citations';
import { emitStep, type RunContext } from './run-context';
import { whileHolding } from './run-lifecycle';
import { newRunStep } from './run-step';
import { newRunMessage } from './thread-input';
import type { Message, RunStep } from './types';

export interface ModelTurn {
  text: string;
  toolCalls: ChatToolCall[];
  usage?: ChatUsage;
  finishReason?: FinishReason;
  /** The assistant message the text became (stored `in_progress`; completed here in memory, written by the caller). */
  message?: Message;
  /** Its `message_creation` step, likewise. */
  step?: RunStep;
}

/**
 * Asks the model for the next turn. Streams (`chat.stream`) when someone watches the run in this
 * process, so text reaches them as `thread.message.delta`; otherwise one `chat.complete` call. Text
 * becomes an assistant message with its `message_creation` step, stored `in_progress` when the first
 * text arrives (only while this process holds the run) and returned completed with its citations:
 * the caller writes it together with the run, so a turn is recorded whole or not at all.
 */
export async function runModelTurn(context: RunContext, request: ChatRequest): Promise<ModelTurn> {
  const { deps, run, state, accountId, signal } = context;
  const parts: AsyncIterable<ChatStreamPart> = deps.events.watching(run.id)
    ? deps.chat.stream(request, { signal, accountId, api: 'assistants' })
    : completeAsParts(context, request);

  let message: Message | undefined;
  let step: RunStep | undefined;
  let text = '';
  let usage: ChatUsage | undefined;
  let finishReason: FinishReason | undefined;
  const calls = new ToolCallAssembler();
  for await (const part of parts) {
    if (part.type === 'text-delta') {
      if (!part.text) continue;
      if (!message) {
        const created = newRunMessage(run.thread_id, run.assistant_id, run.id);
        const createdStep = newRunStep(run, { type: 'message_creation', message_creation: { message_id: created.id } });
        await whileHolding(context, async (tx) => {
          await deps.threads.in(tx).insertMessage(accountId, created);
          await deps.runs.in(tx).insertStep(accountId, createdStep);
          return undefined;
        });
        [message, step] = [created, createdStep];
        emitStep(context, 'created', createdStep);
        emitStep(context, 'in_progress', createdStep);
        deps.events.emit(run.id, 'thread.message.created', created);
        deps.events.emit(run.id, 'thread.message.in_progress', created);
      }
      text += part.text;
      deps.events.emit(run.id, 'thread.message.delta', {
        id: message.id,
        object: 'thread.message.delta',
        delta: { content: [{ index: 0, type: 'text', text: { value: part.text } }] },
      });
    } else if (part.type === 'tool-call-delta') {
      calls.add(part);
    } else if (part.type === 'finish') {
      usage = part.usage;
      finishReason = part.finishReason;
    }
  }
  if (message && step) {
    const now = nowSeconds();
    message.content = [{ type: 'text', text: { value: text, annotations: annotateCitations(text, state.citations) } }];
    message.status = 'completed';
    message.completed_at = now;
    step.status = 'completed';
    step.completed_at = now;
    step.usage = usage ?? null;
  }
  const toolCalls = calls.calls();
  return { text, toolCalls, usage, finishReason, message, step };
}

/** One non-streaming call, replayed as the parts a stream would have produced. */
async function* completeAsParts(context: RunContext, request: ChatRequest): AsyncIterable<ChatStreamPart> {
  const result = await context.deps.chat.complete(request, { signal: context.signal, accountId: context.accountId, api: 'assistants' });
  if (result.message.content) yield { type: 'text-delta', text: result.message.content };
  for (const [index, call] of (result.message.tool_calls ?? []).entries()) {
    yield { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: call.function.arguments };
  }
  yield { type: 'finish', finishReason: result.finishReason, usage: result.usage };
}
