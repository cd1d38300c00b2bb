// Models: one ChatAdapter routing `<vendor>/<model>` to OpenAI-compatible or Anthropic providers.
export * from './types';
export { ChatAdapter, type ChatAdapterOptions, type ModelEntry } from './chat-adapter';
export { modelsSchema, type UsageQuery } from './usage-store';
export { parseModelId, type ModelId } from './model-id';
export type { ChatProvider, ProviderChatResult, ProviderEmbeddings } from './providers/chat-provider';
export { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './providers/openai-compatible/openai-compatible-provider';
export { AnthropicProvider, type AnthropicProviderOptions } from './providers/anthropic/anthropic-provider';
export {
  StoredCompletions,
  CompletionAccumulator,
  storedCompletionsSchema,
  SqlStoredCompletionsRepository,
  type StoredCompletionsRepository,
  type ChatCompletionObject,
  type StoredCompletionsQuery,
  type StoredCompletion,
  type StoredMessage,
} from './stored-completions';
export { readChatCompletionsBody, toChatCompletion, ChatCompletionChunks, type ChatCompletionsCall } from './chat-completions-wire';
