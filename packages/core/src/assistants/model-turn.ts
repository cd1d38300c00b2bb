import { nowSeconds } from '../internal/ids';
import type { ChatRequest, ChatStreamPart } from '../models/types';
import { completionAsParts, type ModelStep } from '../turns';
import { annotateCitations } from './citations';
import { emitStep, type RunContext } from './run-context';
import { whileHolding } from './run-lifecycle';
import { newRunStep } from './run-step';
import { newRunMessage } from './thread-input';
import type { Message, RunStep } from './types';

export interface ModelTurn extends ModelStep {
  /** The assistant message the text became (stored `in_progress`; completed here in memory, written by the caller). */
  message?: Message;
  /** Its `message_creation` step, likewise. */
  step?: RunStep;
}

/**
 * The model call of a run's turn. Streams (`chat.stream`) when someone watches the run in this process,
 * so text reaches them as `thread.message.delta`; otherwise one `chat.complete` call, replayed as parts.
 */
export function runModel(context: RunContext, request: ChatRequest): AsyncIterable<ChatStreamPart> {
  const { deps, run, signal, accountId } = context;
  return deps.events.watching(run.id)
    ? deps.chat.stream(request, { signal, accountId, api: 'assistants' })
    : completionAsParts(deps.chat.complete(request, { signal, accountId, api: 'assistants' }));
}

/**
 * What one model turn writes as its text arrives: an assistant message with its `message_creation` step,
 * stored `in_progress` when the first text arrives (only while this process holds the run), and returned
 * completed with its citations by `finish`: the caller writes it together with the run, so a turn is
 * recorded whole or not at all.
 */
export class TurnMessage {
  #message: Message | undefined;
  #step: RunStep | undefined;

  constructor(private readonly context: RunContext) {}

  async text(piece: string): Promise<void> {
    if (!piece) return;
    const { deps, run, accountId } = this.context;
    if (!this.#message) {
      const created = newRunMessage(run.thread_id, run.assistant_id, run.id);
      const createdStep = newRunStep(run, { type: 'message_creation', message_creation: { message_id: created.id } });
      await whileHolding(this.context, async (tx) => {
        await deps.threads.in(tx).insertMessage(accountId, created);
        await deps.runs.in(tx).insertStep(accountId, createdStep);
        return undefined;
      });
      [this.#message, this.#step] = [created, createdStep];
      emitStep(this.context, 'created', createdStep);
      emitStep(this.context, 'in_progress', createdStep);
      deps.events.emit(run.id, 'thread.message.created', created);
      deps.events.emit(run.id, 'thread.message.in_progress', created);
    }
    deps.events.emit(run.id, 'thread.message.delta', {
      id: this.#message.id,
      object: 'thread.message.delta',
      delta: { content: [{ index: 0, type: 'text', text: { value: piece } }] },
    });
  }

  /** The turn with its message and step completed in memory. */
  finish(turn: ModelStep): ModelTurn {
    const [message, step] = [this.#message, this.#step];
    if (message && step) {
      const now = nowSeconds();
      message.content = [
        { type: 'text', text: { value: turn.text, annotations: annotateCitations(turn.text, this.context.state.citations) } },
      ];
      message.status = 'completed';
      message.completed_at = now;
      step.status = 'completed';
      step.completed_at = now;
      step.usage = turn.usage ?? null;
    }
    return { ...turn, message, step };
  }
}
