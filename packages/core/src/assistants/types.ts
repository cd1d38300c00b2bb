/**
 * Names for the parts of the wire objects the run loop handles. The objects themselves are declared once,
 * in `wire/` (the `openai` SDK v7 shapes); core stores and returns exactly those.
 */
import type { AssistantTool } from './wire/assistants';
import type { Message } from './wire/messages';
import type { RunStep } from './wire/run-steps';
import type { Run } from './wire/runs';

export type { Assistant, AssistantTool, ToolResources } from './wire/assistants';
export type { FileCitationAnnotation, Message, MessageAttachment } from './wire/messages';
export type { RunStep, FileSearchToolCall } from './wire/run-steps';
export type { RequiredActionFunctionToolCall as FunctionToolCall, Run, RunStatus } from './wire/runs';
export type { Thread } from './wire/threads';
export type { AssistantStreamEvent } from './wire/stream-events';
export { FILE_SEARCH_CONTENT_INCLUDE } from './wire/run-steps';

export type Metadata = Record<string, string>;

/** The options of an assistant's `file_search` tool. */
export type FileSearchToolOptions = Extract<AssistantTool, { type: 'file_search' }>['file_search'];

export type TextContent = Message['content'][number];

export type RunUsage = NonNullable<Run['usage']>;

export type StepDetails = RunStep['step_details'];

/** A call recorded on a `tool_calls` step. */
export type StepToolCall = Extract<StepDetails, { type: 'tool_calls' }>['tool_calls'][number];

/** One passage of a `file_search` call. */
export type FileSearchResult = NonNullable<Extract<StepToolCall, { type: 'file_search' }>['file_search']['results']>[number];
