// Models: `fathom.chat.completions` (with `.messages`), `fathom.embeddings`, `fathom.models` and `fathom.usage`,
// and their wire format. The model router other capabilities call (`ChatAdapter`) is internal; its contract
// and parts are exported as types.
export type * from './types';
export type { Chat } from './chat';
export type { ChatCompletionRequestOptions, ChatCompletions } from './chat-completions';
export type { ChatCompletionMessages } from './chat-completion-messages';
export { ChatCompletionStream } from './chat-completion-stream';
export type { EmbeddingRequestOptions, Embeddings } from './embeddings';
export type { Models } from './models';
export type { KeyLabel, KeyLabels, Usage } from './usage';
export { modelsSchema } from './usage-store';
export { modelLatencySchema } from './latency-store';
export { requestErrorsSchema } from './error-store';
export { storedCompletionsSchema } from './stored-completions';
export {
  ChatCompletionCreateParams,
  type ChatCompletionCreateParamsNonStreaming,
  type ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCallParam,
  ChatCompletionResponseFormat,
  ChatCompletionStreamOptions,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from './wire/chat-completion-params';
export {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionDeleted,
  ChatCompletionListParams,
  ChatCompletionMessage,
  ChatCompletionMessageListParams,
  ChatCompletionMessageToolCall,
  ChatCompletionsPage,
  ChatCompletionStoreMessage,
  ChatCompletionStoreMessagesPage,
  ChatCompletionTokenLogprob,
  ChatCompletionUpdateParams,
  CompletionUsage,
} from './wire/chat-completions';
export { CreateEmbeddingResponse, Embedding, EmbeddingCreateParams, MAX_EMBEDDING_INPUTS } from './wire/embeddings';
export { Model, ModelsPage } from './wire/models';
export { UsageGroup, UsageGroupsPage, UsageListParams, UsagePage, UsageRow } from './wire/usage';
export { LatencyListParams, LatencyPage, LatencyRow } from './wire/latency';
export { UsageErrorListParams, UsageErrorsPage, UsageErrorRow } from './wire/errors';
