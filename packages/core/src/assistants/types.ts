/**
 * Wire shapes of the Assistants API as the official `openai` SDK v7 types them (`beta.assistants`,
 * `beta.threads`). Core returns exactly these objects; the HTTP edge serializes them as they are.
 */
export type Metadata = Record<string, string>;

export interface FileSearchToolOptions {
  /** 1..8 (Fathom's cap); default 8. */
  max_num_results?: number;
  ranking_options?: { ranker?: 'auto' | 'default_2024_08_21' | string; score_threshold: number };
}

export type AssistantTool =
  | { type: 'file_search'; file_search?: FileSearchToolOptions }
  | { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null } }
  | { type: 'code_interpreter' };

export interface ToolResources {
  file_search?: { vector_store_ids?: string[] };
  code_interpreter?: { file_ids?: string[] };
}

export interface Assistant {
  id: string;
  object: 'assistant';
  created_at: number;
  name: string | null;
  description: string | null;
  model: string;
  instructions: string | null;
  tools: AssistantTool[];
  tool_resources: ToolResources | null;
  metadata: Metadata | null;
  temperature: number | null;
  top_p: number | null;
  response_format: unknown;
}

export interface Thread {
  id: string;
  object: 'thread';
  created_at: number;
  metadata: Metadata | null;
  tool_resources: ToolResources | null;
}

export interface FileCitationAnnotation {
  type: 'file_citation';
  text: string;
  start_index: number;
  end_index: number;
  file_citation: { file_id: string };
}

export interface TextContent {
  type: 'text';
  text: { value: string; annotations: FileCitationAnnotation[] };
}

/** A file attached to a message; with `file_search` it is added to the thread's vector store. */
export interface MessageAttachment {
  file_id: string;
  tools: Array<{ type: 'file_search' }>;
}

export interface Message {
  id: string;
  object: 'thread.message';
  created_at: number;
  thread_id: string;
  status: 'in_progress' | 'incomplete' | 'completed';
  incomplete_details: { reason: string } | null;
  completed_at: number | null;
  incomplete_at: number | null;
  role: 'user' | 'assistant';
  content: TextContent[];
  assistant_id: string | null;
  run_id: string | null;
  attachments: MessageAttachment[] | null;
  metadata: Metadata | null;
}

export type RunStatus =
  | 'queued'
  | 'in_progress'
  | 'requires_action'
  | 'cancelling'
  | 'cancelled'
  | 'failed'
  | 'completed'
  | 'incomplete'
  | 'expired';

export interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface FunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface Run {
  id: string;
  object: 'thread.run';
  created_at: number;
  thread_id: string;
  assistant_id: string;
  status: RunStatus;
  required_action: { type: 'submit_tool_outputs'; submit_tool_outputs: { tool_calls: FunctionToolCall[] } } | null;
  last_error: { code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt'; message: string } | null;
  expires_at: number | null;
  started_at: number | null;
  cancelled_at: number | null;
  failed_at: number | null;
  completed_at: number | null;
  incomplete_details: { reason: string } | null;
  model: string;
  instructions: string;
  tools: AssistantTool[];
  metadata: Metadata | null;
  usage: RunUsage | null;
  temperature: number | null;
  top_p: number | null;
  max_prompt_tokens: number | null;
  max_completion_tokens: number | null;
  truncation_strategy: { type: 'auto' | 'last_messages'; last_messages: number | null };
  response_format: unknown;
  tool_choice: unknown;
  parallel_tool_calls: boolean;
}

export interface FileSearchResult {
  file_id: string;
  file_name: string;
  score: number;
  content?: Array<{ type: 'text'; text: string }>;
}

export type StepToolCall =
  | {
      id: string;
      type: 'file_search';
      file_search: { ranking_options: { ranker: string; score_threshold: number }; results: FileSearchResult[] };
    }
  | { id: string; type: 'function'; function: { name: string; arguments: string; output: string | null } };

export type StepDetails =
  | { type: 'message_creation'; message_creation: { message_id: string } }
  | { type: 'tool_calls'; tool_calls: StepToolCall[] };

export interface RunStep {
  id: string;
  object: 'thread.run.step';
  created_at: number;
  run_id: string;
  assistant_id: string;
  thread_id: string;
  type: 'message_creation' | 'tool_calls';
  status: 'in_progress' | 'cancelled' | 'failed' | 'completed' | 'expired';
  cancelled_at: number | null;
  completed_at: number | null;
  expired_at: number | null;
  failed_at: number | null;
  last_error: { code: 'server_error' | 'rate_limit_exceeded'; message: string } | null;
  step_details: StepDetails;
  usage: RunUsage | null;
  metadata: Metadata | null;
}

/** One server-sent event of a streamed run, named as OpenAI names them (`thread.run.created`, ..., `done`). */
export interface AssistantStreamEvent {
  event: string;
  data: unknown;
}

/** The `include[]` value that adds passage text to file_search results in run steps. */
export const FILE_SEARCH_CONTENT_INCLUDE = 'step_details.tool_calls[*].file_search.results[*].content';
