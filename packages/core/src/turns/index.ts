// The one model loop (model turn → tool calls → results → next turn) that assistants, Responses and agents adapt.
export {
  type ChatToolCallResult,
  completionAsParts,
  type ModelStep,
  type PlannedCall,
  runToolLoop,
  type ToolAction,
  type ToolLoopEvent,
  type ToolLoopOptions,
  type ToolLoopResult,
  type ToolLoopStop,
} from './tool-loop';
