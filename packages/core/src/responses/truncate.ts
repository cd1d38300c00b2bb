import type { ChatMessage } from '../models/types';

/** A rough token count of messages: about four characters a token, plus a few tokens per message. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += 16;
    if (typeof message.content === 'string') chars += message.content.length;
    else if (Array.isArray(message.content)) {
      for (const part of message.content) chars += 'text' in part && typeof part.text === 'string' ? part.text.length : 3000; // an image costs ~750 tokens
    }
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length + 16;
  }
  return Math.ceil(chars / 4);
}

/**
 * `truncation: "auto"`: drops the oldest turns until the messages fit `maxTokens`. System and developer
 * messages and the last message always stay; an assistant turn with tool calls leaves together with its
 * tool results, so the model never sees a result without its call. Answers the messages kept.
 */
export function truncateMessages(messages: readonly ChatMessage[], maxTokens: number): ChatMessage[] {
  const kept = [...messages];
  const droppable = (index: number) => {
    const message = kept[index]!;
    return message.role !== 'system' && message.role !== 'developer' && index < kept.length - 1;
  };
  while (estimateTokens(kept) > maxTokens) {
    const index = kept.findIndex((_, at) => droppable(at));
    if (index < 0) break;
    const message = kept[index]!;
    let end = index + 1;
    if (message.role === 'assistant' && message.tool_calls?.length) {
      while (end < kept.length - 1 && kept[end]!.role === 'tool') end++;
    } else if (message.role === 'tool') {
      while (end < kept.length - 1 && kept[end]!.role === 'tool') end++;
    }
    kept.splice(index, end - index);
  }
  return kept;
}

/** Whether an upstream error says the prompt is longer than the model's context window. */
export function isContextLengthError(error: unknown): boolean {
  const text = `${(error as { code?: unknown })?.code ?? ''} ${(error as Error)?.message ?? ''}`.toLowerCase();
  return /context[_ ]length|context window|maximum context|too many tokens|prompt is too long/.test(text);
}
