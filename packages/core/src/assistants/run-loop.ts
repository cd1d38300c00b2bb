import { nowSeconds } from '../internal/ids';
import { type TaskContext, TaskStopped } from '../internal/leased-worker';
import { type ModelStep, runToolLoop } from '../turns';
import { type BudgetExhausted, buildChatRequest } from './build-conversation';
import { type ModelTurn, runModel, TurnMessage } from './model-turn';
import { emitStep, type RunContext, type RunDeps } from './run-context';
import {
  addUsage,
  cancelRunNow,
  completeRun,
  expireRun,
  failRun,
  incompleteRun,
  markInProgress,
  RunFailure,
  RunInterrupted,
  type RunWrites,
  saveProgress,
  toLastError,
  whileHolding,
} from './run-lifecycle';
import { planToolRound, recordToolRound, type ToolRound } from './tool-round';

export interface ExecuteOptions {
  /**
   * The run was claimed from the queue (another process's lease ended, or it was given back at a
   * shutdown), not started by a request of this process: what the last attempt left half-done is
   * discarded first, and a run past its `expires_at` ends `expired` instead of going on.
   */
  takeover: boolean;
}

/**
 * Executes a run this process holds the lease on, from where its stored state stands, until it
 * completes, pauses for function outputs, is cancelled, fails or ends `incomplete`. Every step is
 * written together with the run while the lease is held, so another process can take over after a
 * crash and go on from the last recorded step:
 * - a model turn is recorded whole (message, step, usage and the tool calls it asked for) or not at all;
 *   a takeover asks the model again only for a turn that was not recorded, so each attempt repeats at
 *   most the one model call that was in flight;
 * - a recorded turn's file searches are run again by a takeover (they only read);
 * - function calls are never executed by Fathom: the run pauses for the client's outputs.
 * A shutdown or a lost lease writes nothing; a cancel ends the run `cancelled`.
 */
export async function executeRun(deps: RunDeps, runId: string, task: TaskContext, options: ExecuteOptions): Promise<void> {
  const stored = await deps.runs.byId(runId);
  if (!stored || stored.leaseOwner !== task.owner) return;
  const { run, state } = stored;
  const context: RunContext = { deps, accountId: stored.accountId, run, state, signal: task.signal, owner: task.owner };
  try {
    if (run.status === 'cancelling') {
      await cancelRunNow(context);
      return;
    }
    if (run.status !== 'queued' && run.status !== 'in_progress') return;
    if (options.takeover) {
      if (run.expires_at !== null && run.expires_at < nowSeconds()) {
        await expireRun(context);
        return;
      }
      await discardInterruptedWork(context);
    }
    await markInProgress(context);
    await runTurns(context);
  } catch (error) {
    await settleError(context, error);
  }
}

/**
 * The run's turns on the one tool loop (`turns/`), from where its stored state stands: a recorded turn
 * whose tools did not run starts with them; each model turn is recorded before its tools run, each
 * round of tools at its end.
 */
async function runTurns(context: RunContext): Promise<void> {
  const { deps, run, state } = context;
  let exhausted: BudgetExhausted | undefined;
  let message: TurnMessage | undefined;
  let round: ToolRound | undefined;
  const loop = runToolLoop<never>({
    messages: state.transcript,
    request: async () => {
      const request = buildChatRequest(run, await deps.threads.allMessages(run.thread_id), state);
      if ('exhausted' in request) exhausted = request;
      return request;
    },
    model: (request) => runModel(context, request),
    tools: async (step) => {
      const plan = await planToolRound(context, step);
      round = plan.round;
      return plan.planned;
    },
    stopWhen: (step) => isCut(context, step),
    maxToolRounds: deps.maxToolRounds,
    toolRoundsDone: state.toolRounds,
    resume: state.turn ? { turn: 0, text: state.turn.text, toolCalls: state.turn.toolCalls } : undefined,
    signal: context.signal,
  });
  for (let next = await loop.next(); ; next = await loop.next()) {
    if (next.done) {
      if (next.value.reason === 'exhausted' && exhausted) await incompleteRun(context, exhausted.exhausted);
      if (next.value.reason === 'max-tool-rounds') {
        throw new RunFailure(
          `The run stopped after ${deps.maxToolRounds} rounds of tool calls without a final answer (the limit per run).`,
        );
      }
      return;
    }
    const event = next.value;
    if (event.type === 'turn-start') message = new TurnMessage(context);
    else if (event.type === 'part' && event.part.type === 'text-delta') await message!.text(event.part.text);
    // Counted as soon as the model answers, recorded or not (a cancel right after it keeps it).
    else if (event.type === 'part' && event.part.type === 'finish') addUsage(run, event.part.usage);
    else if (event.type === 'turn-finish') await recordTurn(context, message!.finish(event.step));
    else if (event.type === 'round-finish') await recordToolRound(context, round!, event.toolRounds, event.pending);
  }
}

/** An answer cut by `max_completion_tokens` ends the run `incomplete`. */
function isCut(context: RunContext, turn: ModelStep): boolean {
  return turn.finishReason === 'length' && context.run.max_completion_tokens !== null;
}

/** Writes a model turn with the run: the run completes, ends incomplete, or records the tools it asked for. */
async function recordTurn(context: RunContext, turn: ModelTurn): Promise<void> {
  const { deps, run, state } = context;
  const { message, step } = turn;
  const cut = isCut(context, turn);
  if (cut && message) {
    message.status = 'incomplete';
    message.completed_at = null;
    message.incomplete_at = nowSeconds();
    message.incomplete_details = { reason: 'max_tokens' };
  }
  const writes: RunWrites = async (tx) => {
    if (!message || !step) return undefined;
    await deps.threads.in(tx).saveMessage(message);
    await deps.runs.in(tx).saveStep(step);
    return [
      () => deps.events.emit(run.id, `thread.message.${message.status === 'completed' ? 'completed' : 'incomplete'}`, message),
      () => emitStep(context, 'completed', step),
    ];
  };
  if (cut) {
    await incompleteRun(context, 'max_completion_tokens', writes);
    return;
  }
  if (turn.toolCalls.length === 0) {
    await completeRun(context, writes);
    return;
  }
  state.turn = { text: turn.text, toolCalls: turn.toolCalls };
  await saveProgress(context, writes);
}

/**
 * What the interrupted attempt left half-done is dropped: the message and step of a model call that
 * never finished (they hold no text: it is written when the turn is recorded) and tool steps of no
 * recorded turn. Completed messages and steps stay.
 */
async function discardInterruptedWork(context: RunContext): Promise<void> {
  const { deps, run, state } = context;
  await whileHolding(context, async (tx) => {
    const threads = deps.threads.in(tx);
    const runs = deps.runs.in(tx);
    for (const message of await threads.runMessages(run.id)) {
      if (message.status === 'in_progress') await threads.deleteMessage(message.id);
    }
    for (const step of await runs.openSteps(run.id)) {
      if (step.id !== state.toolStepId) await runs.deleteStep(step.id);
    }
    return undefined;
  });
}

/**
 * Ends the run after an error: nothing on shutdown or a lost lease (the next holder goes on), cancelled
 * on a cancel, else failed with the error's message (or cancelled, when a cancel was asked meanwhile).
 */
async function settleError(context: RunContext, error: unknown): Promise<void> {
  const reason = context.signal.aborted ? context.signal.reason : undefined;
  const stopped = (reason instanceof TaskStopped && reason.reason !== 'cancelled') || (error instanceof RunInterrupted && !error.cancelled);
  if (stopped) {
    // The stream belongs to this process's request: it ends here; whoever holds the run now finishes it.
    context.deps.events.end(
      context.run.id,
      'This run is now executed by another server process; its stream ends here. Poll the run (GET /v1/threads/{thread_id}/runs/{run_id}) for its result.',
    );
    if (reason instanceof TaskStopped) throw reason;
    return;
  }
  try {
    if (reason instanceof TaskStopped || (error instanceof RunInterrupted && error.cancelled)) {
      await cancelRunNow(context);
      return;
    }
    const lastError = toLastError(error);
    context.deps.log.warn(`run ${context.run.id} failed: ${lastError.message}`);
    await failRun(context, lastError);
  } catch (ending) {
    if (!(ending instanceof RunInterrupted)) throw ending;
    if (ending.cancelled) await cancelRunNow(context).catch(() => undefined);
  }
}
