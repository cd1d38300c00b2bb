import { nowSeconds } from '../internal/ids';
import type { ChatMessage } from '../models/types';
import { runFileSearch } from './file-search-tool';
import { emitStep, type RunContext } from './run-context';
import { pauseRun, RunFailure, saveProgress } from './run-lifecycle';
import { newRunStep } from './run-step';
import type { FunctionToolCall, RunStep, StepToolCall } from './types';

/**
 * Acts on the recorded model turn that asked for tools (`state.turn`), as one `tool_calls` run step:
 * file_search calls run here (results recorded on the step, passages appended to the transcript);
 * function calls pause the run in `requires_action` until the client submits their outputs. The step
 * is created once per turn and reused by a takeover, which runs the searches again (they only read).
 * The round is recorded in one write at its end. Returns whether the loop goes on.
 */
export async function runToolRound(context: RunContext): Promise<'continue' | 'paused'> {
  const { deps, run, state, accountId } = context;
  const turn = state.turn;
  if (!turn) return 'continue';
  if (state.toolRounds + 1 > deps.maxToolRounds) {
    throw new RunFailure(`The run stopped after ${deps.maxToolRounds} rounds of tool calls without a final answer (the limit per run).`);
  }
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

  const outputs: ChatMessage[] = [];
  const citations: Record<string, { file_id: string; filename: string }> = {};
  let searches = state.searches;
  const pending: FunctionToolCall[] = [];
  const storeIds = await searchStoreIds(context);
  for (const [index, call] of turn.toolCalls.entries()) {
    const entry = entries[index]!;
    if (entry.type === 'file_search') {
      const outcome = await unlessAborted(
        context.signal,
        runFileSearch({
          searcher: deps.searcher,
          accountId,
          storeIds,
          options: fileSearch?.type === 'file_search' ? fileSearch.file_search : undefined,
          argumentsJson: call.function.arguments,
          turn: searches++,
          ingestionWaitMs: deps.ingestionWaitMs,
        }),
      );
      entry.file_search = { ranking_options: outcome.ranking, results: outcome.results };
      Object.assign(citations, outcome.citations);
      outputs.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
    } else if (functionNames.has(call.function.name)) {
      pending.push({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } });
    } else {
      const available = [...functionNames, ...(fileSearch ? ['file_search'] : [])].join(', ') || 'none';
      const output = `Error: the tool '${call.function.name}' does not exist. Available tools: ${available}.`;
      if (entry.type === 'function') entry.function.output = output;
      outputs.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }

  // Record the round: the model's tool calls and the outputs known so far join the transcript.
  state.transcript.push({ role: 'assistant', content: turn.text || null, tool_calls: turn.toolCalls }, ...outputs);
  state.toolRounds += 1;
  state.searches = searches;
  Object.assign(state.citations, citations);
  state.turn = undefined;
  state.toolStepId = undefined;
  const roundStep = step;
  if (pending.length) {
    state.pendingStepId = roundStep.id;
    run.required_action = { type: 'submit_tool_outputs', submit_tool_outputs: { tool_calls: pending } };
    await pauseRun(context, async (tx) => {
      await deps.runs.in(tx).saveStep(roundStep);
      return undefined;
    });
    return 'paused';
  }
  roundStep.status = 'completed';
  roundStep.completed_at = nowSeconds();
  await saveProgress(context, async (tx) => {
    await deps.runs.in(tx).saveStep(roundStep);
    return [() => emitStep(context, 'completed', roundStep)];
  });
  return 'continue';
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
