// Responses and Conversations: OpenAI's stateful API, stored per account, run on top of chat.
export { Responses, type ResponsesOptions, type CreateResult } from './responses';
export { ResponseInputItems } from './input-items';
export { Conversations } from './conversations';
export { ConversationItems } from './conversation-items';
export * from './wire';
export { responsesSchema } from './schema';
export { mcpApprovalsSchema } from './mcp-approvals';
export { readResponseRequest, FILE_SEARCH_MAX_RESULTS, type ResponseRequest, type FileSearchSettings } from './read-request';
export {
  runResponse,
  viewItem,
  MAX_FILE_SEARCH_ROUNDS,
  FILE_SEARCH_INGESTION_WAIT_MS,
  type RunDeps,
  type ResponsesEvent,
  type ResponseObject,
} from './run-response';
export { normalizeInput, type StoredItem, type InputItem } from './items';
export type { FileContents } from './to-messages';
export { SqlResponsesRepository, type ResponsesRepository, type StoredResponse, type ResponseStatus } from './responses-repository';
export { SqlConversationsRepository, type ConversationsRepository } from './conversations-repository';
