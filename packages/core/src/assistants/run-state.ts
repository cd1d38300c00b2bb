import type { ChatMessage, ChatToolCall } from '../models/types';
import type { ToolResources } from './types';

/**
 * What a run needs to go on from where it stands, stored with it (`runs.state`): after a pause
 * (requires_action), and after its process died and another one took it over.
 */
export interface RunState {
  /** Turns the run added after the thread's messages: assistant tool calls and tool results. */
  transcript: ChatMessage[];
  /** Citation marker (`{turn}:{index}`) -> the passage's file. */
  citations: Record<string, { file_id: string; filename: string }>;
  /** file_search calls made so far (the `turn` of the next markers). */
  searches: number;
  /** Model answers that asked for tools so far (capped by `maxToolRounds`). */
  toolRounds: number;
  /**
   * A model answer that asked for tools, recorded (with its message and step) but not acted on yet. A
   * run taken over in this state runs the tools of this answer; it does not ask the model again.
   */
  turn?: { text: string; toolCalls: ChatToolCall[] };
  /** The `tool_calls` step created for `turn`, reused by a takeover. */
  toolStepId?: string;
  /** The tool_calls step waiting for function outputs, while `requires_action`. */
  pendingStepId?: string;
  /** `include[]` of the request that started the stream (adds passage text to streamed steps). */
  include?: string[];
  /** `tool_resources` given on createAndRun: replaces the assistant's stores for this run. */
  toolResources?: ToolResources | null;
}

export const emptyRunState = (): RunState => ({ transcript: [], citations: {}, searches: 0, toolRounds: 0 });
