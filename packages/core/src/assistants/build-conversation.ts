import type { ChatMessage, ChatRequest, ChatToolDefinition } from '../models/types';
import { CITATION_INSTRUCTIONS } from './citations';
import { FILE_SEARCH_FUNCTION } from './file-search-tool';
import type { RunState } from './run-state';
import { completionBudget, estimatePromptTokens, promptBudget } from './token-budget';
import type { Message, Run } from './types';

/** Why a turn cannot be asked: the run's prompt or completion token budget is spent. */
export type BudgetExhausted = { exhausted: 'max_prompt_tokens' | 'max_completion_tokens' };

/**
 * The chat request of one model turn: the run's instructions (plus citation guidance when file_search
 * is on), the thread's messages up to this run, then the turns this run added (tool calls and results).
 *
 * Token budgets: `max_completion_tokens` caps the run's completion tokens over all its turns (each turn
 * may use what is left); `max_prompt_tokens` caps its prompt tokens over all turns: the oldest thread
 * messages are left out until the turn's estimated prompt fits what is left (the latest message always
 * stays). A budget that cannot fit the turn answers `exhausted` (the run ends `incomplete`).
 */
export function buildChatRequest(run: Run, threadMessages: Message[], state: RunState): ChatRequest | BudgetExhausted {
  const completion = completionBudget(run);
  if (completion !== null && completion <= 0) return { exhausted: 'max_completion_tokens' };
  const fileSearch = run.tools.some((tool) => tool.type === 'file_search');
  const system = [run.instructions, fileSearch ? CITATION_INSTRUCTIONS : ''].filter((part) => part && part.trim()).join('\n\n');
  const head: ChatMessage[] = system ? [{ role: 'system', content: system }] : [];
  // Messages this run wrote are represented (with their tool calls) in the transcript.
  let history = threadMessages.filter((message) => message.run_id !== run.id);
  const keep = run.truncation_strategy?.type === 'last_messages' ? run.truncation_strategy.last_messages : null;
  if (keep !== null && keep !== undefined) history = keep > 0 ? history.slice(-keep) : [];
  let turns: ChatMessage[] = history.map((message) => ({
    role: message.role,
    content: message.content.map((part) => part.text.value).join('\n'),
  }));
  const tools = declaredTools(run);
  const prompt = promptBudget(run);
  if (prompt !== null) {
    const size = () => estimatePromptTokens([...head, ...turns, ...state.transcript], tools);
    while (turns.length > 1 && size() > prompt) turns = turns.slice(1);
    if (size() > prompt) return { exhausted: 'max_prompt_tokens' };
  }
  return {
    model: run.model,
    messages: [...head, ...turns, ...state.transcript],
    ...(tools.length ? { tools, tool_choice: toolChoice(run) } : {}),
    ...(run.temperature !== null ? { temperature: run.temperature } : {}),
    ...(run.top_p !== null ? { top_p: run.top_p } : {}),
    ...(completion !== null ? { max_tokens: completion } : {}),
    ...(run.response_format && run.response_format !== 'auto' ? { response_format: run.response_format as Record<string, unknown> } : {}),
    ...(tools.length && run.parallel_tool_calls === false ? { extra: { parallel_tool_calls: false } } : {}),
  };
}

/** file_search becomes a function taking `{query}`; function tools pass through. */
export function declaredTools(run: Run): ChatToolDefinition[] {
  const tools: ChatToolDefinition[] = [];
  for (const tool of run.tools) {
    if (tool.type === 'file_search') tools.push(FILE_SEARCH_FUNCTION);
    else if (tool.type === 'function') {
      tools.push({ type: 'function', function: { ...tool.function, strict: tool.function.strict ?? undefined } });
    }
  }
  return tools;
}

function toolChoice(run: Run): ChatRequest['tool_choice'] {
  const choice = run.tool_choice;
  if (choice === 'none' || choice === 'required' || choice === 'auto') return choice;
  if (typeof choice !== 'object' || choice === null) return 'auto';
  const { type, function: fn } = choice as { type?: unknown; function?: { name?: unknown } | null };
  if (type === 'file_search') return { type: 'function', function: { name: 'file_search' } };
  if (type === 'function' && typeof fn?.name === 'string' && fn.name) return { type: 'function', function: { name: fn.name } };
  return 'auto';
}
