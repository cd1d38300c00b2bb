import type { ChatLogprobs, ChatRequest, ChatStreamPart, ChatToolCall, ChatUsage, FinishReason } from '../types';

/** What a provider answers for one non-streaming call; the ChatAdapter adds the id and the `<vendor>/` model prefix. */
export interface ProviderChatResult {
  message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
  finishReason: FinishReason;
  usage: ChatUsage;
  /** `choices[0].logprobs` as the upstream sent it, when the request asked for `logprobs`. */
  logprobs?: ChatLogprobs | null;
}

export interface ProviderEmbeddings {
  embeddings: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

/**
 * The provider contract: one upstream API family (OpenAI-compatible, Anthropic). `model` is the
 * upstream model name (the part after `<vendor>/`); the request's own `model` field is ignored.
 */
export interface ChatProvider {
  readonly vendor: string;
  readonly type: 'openai' | 'anthropic';
  complete(model: string, request: ChatRequest, signal?: AbortSignal): Promise<ProviderChatResult>;
  /** Connects on the first `next()`; errors before the first part are thrown from it (nothing streamed yet). */
  stream(model: string, request: ChatRequest, signal?: AbortSignal): AsyncIterable<ChatStreamPart>;
  /** Upstream model names (without the vendor prefix). */
  listModels(signal?: AbortSignal): Promise<string[]>;
  embed?(
    model: string,
    input: string[] | number[][],
    options: { dimensions?: number; user?: string; signal?: AbortSignal },
  ): Promise<ProviderEmbeddings>;
  close(): Promise<void>;
}

export const ZERO_USAGE: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
