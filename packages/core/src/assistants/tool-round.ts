import { nowSeconds } from '../internal/ids';
import type { ChatToolCall } from '../models/types';
import type { ModelStep, PlannedCall } from '../turns';
import { runFileSearch } from './file-search-tool';
import { emitStep, type RunContext } from './run-context';
import { pauseRun, saveProgress } from './run-lifecycle';
import { newRunStep } from './run-step';
import type { FunctionToolCall, RunStep, StepToolCall } from './types';

/** One round of tool calls in progress: its `tool_calls` step and what its searches found, until it is recorded. */
export interface ToolRound {
  step: RunStep;
  citations: Record<string, { file_id: string; filename: string }>;
  searches: number;
}

/**
 * What the tool loop does with the calls of a recorded model turn that asked for tools (`state.turn`),
 * as one `tool_calls` run step: file_search calls run (results recorded on the step, passages appended
 * to the transcript); function calls are the client's (the run pauses in `requires_action` until it
 * submits their outputs); an unknown tool is answered with an error. The step is created once per turn
 * and reused by a takeover, which runs the searches again (they only read). `recordToolRound` writes the
 * round in one write at its end.
 */
export async function planToolRound(context: RunContext, turn: ModelStep): Promise<{ round: ToolRound; planned: PlannedCall<never>[] }> {
  const { deps, run, state, accountId } = context;
  const fileSearch = run.tools.find((tool) => tool.type === 'file_search');
  const functionNames = new Set(run.tools.flatMap((tool) => (tool.type === 'function' ? [tool.function.name] : [])));
  const entries: StepToolCall[] = turn.toolCalls.map((call) =>
    call.function.name === 'file_search' && fileSearch
      ? { id: call.id, type: 'file_search', file_search: { ranking_options: { ranker: 'auto', score_threshold: 0 }, results: [] } }
      : { id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments, output: null } },
  );

  let step: RunStep | undefined = state.toolStepId ? await deps.runs.stepById(state.toolStepId) : undefined;
  if (step) step.step_details = { type: 'tool_calls', tool_calls: entries };
  else {
    const created = newRunStep(run, { type: 'tool_calls', tool_calls: entries });
    state.toolStepId = created.id;
    await saveProgress(context, async (tx) => {
      await deps.runs.in(tx).insertStep(accountId, created);
      return undefined;
    });
    step = created;
  }
  emitStep(context, 'created', step);
  emitStep(context, 'in_progress', step);
  // One delta per call, as OpenAI streams them (the SDK's `toolCallCreated` / `toolCallDone` hang on these).
  for (const [index, entry] of entries.entries()) {
    deps.events.emit(run.id, 'thread.run.step.delta', {
      id: step.id,
      object: 'thread.run.step.delta',
      delta: { step_details: { type: 'tool_calls', tool_calls: [{ index, ...entry }] } },
    });
  }

  const round: ToolRound = { step, citations: {}, searches: state.searches };
  const storeIds = await searchStoreIds(context);
  const planned = turn.toolCalls.map((call, index): PlannedCall<never> => {
    const entry = entries[index]!;
    if (entry.type === 'file_search') {
      const search = async () => {
        const outcome = await unlessAborted(
          context.signal,
          runFileSearch({
            searcher: deps.searcher,
            accountId,
            storeIds,
            options: fileSearch?.type === 'file_search' ? fileSearch.file_search : undefined,
            argumentsJson: call.function.arguments,
            turn: round.searches++,
            ingestionWaitMs: deps.ingestionWaitMs,
          }),
        );
        entry.file_search = { ranking_options: outcome.ranking, results: outcome.results };
        Object.assign(round.citations, outcome.citations);
        return outcome.output;
      };
      return { call, action: { type: 'run', run: search } };
    }
    if (functionNames.has(call.function.name)) return { call, action: { type: 'client' } };
    const available = [...functionNames, ...(fileSearch ? ['file_search'] : [])].join(', ') || 'none';
    const output = `Error: the tool '${call.function.name}' does not exist. Available tools: ${available}.`;
    if (entry.type === 'function') entry.function.output = output;
    return { call, action: { type: 'answer', output } };
  });
  return { round, planned };
}

/**
 * Records a round whose results the loop has added to the transcript: the run pauses for the client's
 * functions (`requires_action`), or the step completes and the run goes on.
 */
export async function recordToolRound(context: RunContext, round: ToolRound, toolRounds: number, pending: ChatToolCall[]): Promise<void> {
  const { deps, run, state } = context;
  state.toolRounds = toolRounds;
  state.searches = round.searches;
  Object.assign(state.citations, round.citations);
  state.turn = undefined;
  state.toolStepId = undefined;
  const roundStep = round.step;
  if (pending.length) {
    const calls: FunctionToolCall[] = pending.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
    state.pendingStepId = roundStep.id;
    run.required_action = { type: 'submit_tool_outputs', submit_tool_outputs: { tool_calls: calls } };
    await pauseRun(context, async (tx) => {
      await deps.runs.in(tx).saveStep(roundStep);
      return undefined;
    });
    return;
  }
  roundStep.status = 'completed';
  roundStep.completed_at = nowSeconds();
  await saveProgress(context, async (tx) => {
    await deps.runs.in(tx).saveStep(roundStep);
    return [() => emitStep(context, 'completed', roundStep)];
  });
}

/** `work`, or its signal's reason as soon as the run is stopped (a search waiting for ingestion does not hold a shutdown up). */
function unlessAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/** The assistant's stores (or the run's `tool_resources` override) and the thread's, together. */
async function searchStoreIds(context: RunContext): Promise<string[]> {
  const { deps, run, accountId } = context;
  const override = context.state.toolResources?.file_search?.vector_store_ids;
  const assistantStores =
    override ?? (await deps.assistants.get(accountId, run.assistant_id))?.tool_resources?.file_search?.vector_store_ids ?? [];
  const threadStores = (await deps.threads.getThread(accountId, run.thread_id))?.tool_resources?.file_search?.vector_store_ids ?? [];
  return [...new Set([...assistantStores, ...threadStores])];
}
