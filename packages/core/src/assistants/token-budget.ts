import { approximateSubwordSpans } from '../embeddings/text-tokens';
import type { ChatMessage, ChatToolDefinition } from '../models/types';
import type { Run } from './types';

/** Tokens every chat message costs beyond its text (role and separators), as OpenAI's chat format counts them. */
const PER_MESSAGE = 4;

/**
 * An estimate of the prompt tokens of a request, without the model's tokenizer: sub-word pieces of
 * every text (messages, tool calls, tool definitions) plus a few tokens per message. It is close to
 * BPE counts for English prose; the provider's reported usage stays the measure of what was used.
 */
export function estimatePromptTokens(messages: readonly ChatMessage[], tools: readonly ChatToolDefinition[] = []): number {
  let total = 0;
  for (const message of messages) {
    total += PER_MESSAGE + count(typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''));
    if (message.role === 'assistant' && message.tool_calls) total += count(JSON.stringify(message.tool_calls));
  }
  for (const tool of tools) total += count(JSON.stringify(tool));
  return total;
}

function count(text: string): number {
  return approximateSubwordSpans(text).length;
}

/** Completion tokens the run may still use (`max_completion_tokens` minus what it used), or null without a cap. */
export function completionBudget(run: Run): number | null {
  if (run.max_completion_tokens === null) return null;
  return run.max_completion_tokens - (run.usage?.completion_tokens ?? 0);
}

/** Prompt tokens the run may still use (`max_prompt_tokens` minus what it used), or null without a cap. */
export function promptBudget(run: Run): number | null {
  if (run.max_prompt_tokens === null) return null;
  return run.max_prompt_tokens - (run.usage?.prompt_tokens ?? 0);
}
