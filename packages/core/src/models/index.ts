// Models: one ChatAdapter routing `<vendor>/<model>` to OpenAI-compatible or Anthropic providers.
export * from './types';
export { ChatAdapter, type ChatAdapterOptions, type ModelEntry } from './chat-adapter';
export { modelsSchema, type UsageQuery } from './usage-store';
export { parseModelId, type ModelId } from './model-id';
export type { ChatProvider, ProviderChatResult, ProviderEmbeddings } from './providers/chat-provider';
export { OpenAICompatibleProvider, type OpenAICompatibleProviderOptions } from './providers/openai-compatible/openai-compatible-provider';
export { AnthropicProvider, type AnthropicProviderOptions } from './providers/anthropic/anthropic-provider';
export { readChatCompletionsBody, toChatCompletion, ChatCompletionChunks, type ChatCompletionsCall } from './chat-completions-wire';
export { readResponsesBody, FILE_SEARCH_MAX_RESULTS, type ResponsesCall, type FileSearchSettings } from './responses/responses-request';
export {
  runResponse,
  createResponse,
  MAX_FILE_SEARCH_ROUNDS,
  FILE_SEARCH_INGESTION_WAIT_MS,
  type ResponsesDeps,
  type ResponsesEvent,
  type ResponsesRunOptions,
} from './responses/responses-runner';
