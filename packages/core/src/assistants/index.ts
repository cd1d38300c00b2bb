export { AssistantRunner, type AssistantRunnerOptions, type RunOptions } from './assistant-runner';
export { assistantsSchema } from './schema';
export type { AssistantInput } from './assistant-input';
export type { MessageInput, ThreadInput } from './thread-input';
export type { RunInput, ThreadAndRunInput } from './create-run';
export type { ThreadStores } from './thread-stores';
export { threadStoresOf, type DocumentsForThreads } from './documents-thread-stores';
export {
  FILE_SEARCH_CONTENT_INCLUDE,
  type Assistant,
  type AssistantStreamEvent,
  type AssistantTool,
  type FileCitationAnnotation,
  type Message,
  type MessageAttachment,
  type Run,
  type RunStatus,
  type RunStep,
  type Thread,
} from './types';
