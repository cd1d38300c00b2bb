// The assistants capability: `fathom.assistants` and `fathom.threads` (with `.messages`, `.runs`, `.runs.steps`), and their wire format.
export type { Assistants } from './assistants';
export type { Threads } from './threads';
export type { ThreadMessages } from './messages';
export type { ThreadRuns } from './runs';
export type { RunSteps } from './run-steps';
export type { RunRequestOptions } from './create-run';
export { assistantsSchema } from './schema';
export {
  Assistant,
  AssistantCreateParams,
  AssistantDeleted,
  AssistantListParams,
  AssistantsPage,
  AssistantTool,
  AssistantToolParam,
  AssistantUpdateParams,
  ToolResources,
} from './wire/assistants';
export {
  type FileCitationAnnotation,
  Message,
  type MessageAttachment,
  MessageCreateParams,
  MessageDeleted,
  MessageDeltaEvent,
  MessageListParams,
  MessagesPage,
  MessageUpdateParams,
} from './wire/messages';
export { Thread, ThreadCreateAndRunParams, ThreadCreateParams, ThreadDeleted, ThreadUpdateParams } from './wire/threads';
export {
  RequiredActionFunctionToolCall,
  Run,
  RunCreateParams,
  RunCreateQuery,
  RunListParams,
  RunsPage,
  RunStatus,
  RunSubmitToolOutputsParams,
  RunUpdateParams,
} from './wire/runs';
export {
  FILE_SEARCH_CONTENT_INCLUDE,
  RunStep,
  RunStepDeltaEvent,
  RunStepInclude,
  RunStepsPage,
  StepListParams,
  StepRetrieveParams,
} from './wire/run-steps';
export { AssistantStreamEvent } from './wire/stream-events';
