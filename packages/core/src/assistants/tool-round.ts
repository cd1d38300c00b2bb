import { nowSeconds } from '../internal/ids';
import type { ChatToolCall } from '../models/types';
import { runFileSearch } from './file-search-tool';
import { emitStep, type RunContext } from './run-context';
import { RunFailure, saveAndEmit } from './run-lifecycle';
import type { FunctionToolCall, StepToolCall } from './types';

/**
 * Handles a model turn that asked for tools, as one `tool_calls` run step: file_search calls run
 * here (results recorded on the step, passages appended to the transcript); function calls pause the
 * run in `requires_action` until the client submits their outputs. Returns whether the loop goes on.
 */
export async function runToolRound(context: RunContext, text: string, toolCalls: ChatToolCall[]): Promise<'continue' | 'paused'> {
  const { deps, run, state, accountId } = context;
  state.toolRounds += 1;
  if (state.toolRounds > deps.maxToolRounds) {
    throw new RunFailure(`The run stopped after ${deps.maxToolRounds} rounds of tool calls without a final answer (the limit per run).`);
  }
  state.transcript.push({ role: 'assistant', content: text || null, tool_calls: toolCalls });
  const fileSearch = run.tools.find((tool) => tool.type === 'file_search');
  const functionNames = new Set(run.tools.flatMap((tool) => (tool.type === 'function' ? [tool.function.name] : [])));

  const entries: StepToolCall[] = toolCalls.map((call) =>
    call.function.name === 'file_search' && fileSearch
      ? { id: call.id, type: 'file_search', file_search: { ranking_options: { ranker: 'auto', score_threshold: 0 }, results: [] } }
      : { id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments, output: null } },
  );
  const step = deps.runs.createStep(accountId, run, { type: 'tool_calls', tool_calls: entries });
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

  const pending: FunctionToolCall[] = [];
  for (const [index, call] of toolCalls.entries()) {
    const entry = entries[index]!;
    if (entry.type === 'file_search') {
      if (context.signal.aborted) throw context.signal.reason;
      const turn = state.searches;
      state.searches += 1;
      const outcome = await runFileSearch({
        searcher: deps.searcher,
        accountId,
        storeIds: searchStoreIds(context),
        options: fileSearch?.type === 'file_search' ? fileSearch.file_search : undefined,
        argumentsJson: call.function.arguments,
        turn,
        ingestionWaitMs: deps.ingestionWaitMs,
      });
      entry.file_search = { ranking_options: outcome.ranking, results: outcome.results };
      Object.assign(state.citations, outcome.citations);
      state.transcript.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
    } else if (functionNames.has(call.function.name)) {
      pending.push({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } });
    } else {
      const output = `Error: the tool '${call.function.name}' does not exist. Available tools: ${[...functionNames, ...(fileSearch ? ['file_search'] : [])].join(', ') || 'none'}.`;
      if (entry.type === 'function') entry.function.output = output;
      state.transcript.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }

  if (pending.length) {
    deps.runs.saveStep(step);
    state.pendingStepId = step.id;
    run.status = 'requires_action';
    run.required_action = { type: 'submit_tool_outputs', submit_tool_outputs: { tool_calls: pending } };
    saveAndEmit(context);
    return 'paused';
  }
  step.status = 'completed';
  step.completed_at = nowSeconds();
  deps.runs.saveStep(step);
  emitStep(context, 'completed', step);
  deps.runs.save(run, state);
  return 'continue';
}

/** The assistant's stores (or the run's `tool_resources` override) and the thread's, together. */
function searchStoreIds(context: RunContext): string[] {
  const { deps, run, accountId } = context;
  const override = context.state.toolResources?.file_search?.vector_store_ids;
  let assistantStores: string[] = override ?? [];
  if (!override) {
    try {
      assistantStores = deps.assistants.get(accountId, run.assistant_id).tool_resources?.file_search?.vector_store_ids ?? [];
    } catch {
      assistantStores = [];
    }
  }
  const threadStores = deps.threads.get(accountId, run.thread_id).tool_resources?.file_search?.vector_store_ids ?? [];
  return [...new Set([...assistantStores, ...threadStores])];
}
