export { AssistantRunner, type AssistantRunnerOptions, type RunOptions } from './assistant-runner';
export { assistantsSchema } from './schema';
export type { AssistantInput } from './assistant-store';
export type { MessageInput, ThreadInput } from './thread-store';
export type { RunInput, ThreadAndRunInput } from './create-run';
export {
  FILE_SEARCH_CONTENT_INCLUDE,
  type Assistant,
  type AssistantStreamEvent,
  type AssistantTool,
  type FileCitationAnnotation,
  type Message,
  type Run,
  type RunStatus,
  type RunStep,
  type Thread,
} from './types';
