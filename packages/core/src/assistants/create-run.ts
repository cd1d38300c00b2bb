import { InvalidRequestError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { normalizeMetadata, normalizeTools, optionalNumber } from './normalize-input';
import type { ThreadInput } from './thread-input';
import type { Assistant, Run } from './types';

/** Body of `POST /v1/threads/{id}/runs` (the `stream` flag is handled by the caller). */
export interface RunInput {
  assistant_id?: string;
  model?: string | null;
  instructions?: string | null;
  additional_instructions?: string | null;
  additional_messages?: ThreadInput['messages'] | null;
  tools?: unknown[] | null;
  metadata?: Record<string, string> | null;
  temperature?: number | null;
  top_p?: number | null;
  max_prompt_tokens?: number | null;
  max_completion_tokens?: number | null;
  truncation_strategy?: Run['truncation_strategy'] | null;
  response_format?: unknown;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
}

/** Body of `POST /v1/threads/runs`: a run plus the thread to create (and a `tool_resources` override). */
export interface ThreadAndRunInput extends Omit<RunInput, 'additional_instructions' | 'additional_messages'> {
  thread?: ThreadInput;
  tool_resources?: unknown;
}

/**
 * A queued run object for `threadId`: the assistant's model, instructions and tools unless the request
 * overrides them; `additional_instructions` is appended to the instructions.
 */
export function newRunObject(assistant: Assistant, threadId: string, input: RunInput, expirySeconds: number): Run {
  const base = input.instructions ?? assistant.instructions ?? '';
  const instructions = [base, input.additional_instructions ?? ''].filter((part) => part).join('\n\n');
  const created = nowSeconds();
  const limit = (value: unknown, param: string) => {
    if (value === undefined || value === null) return null;
    if (!Number.isInteger(value) || (value as number) < 256)
      throw new InvalidRequestError(`Invalid '${param}': expected an integer of at least 256.`, param);
    return value as number;
  };
  return {
    id: newId('run_'),
    object: 'thread.run',
    created_at: created,
    thread_id: threadId,
    assistant_id: assistant.id,
    status: 'queued',
    required_action: null,
    last_error: null,
    expires_at: created + expirySeconds,
    started_at: null,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    incomplete_details: null,
    model: input.model || assistant.model,
    instructions,
    tools: input.tools ? normalizeTools(input.tools) : assistant.tools,
    metadata: normalizeMetadata(input.metadata) ?? {},
    usage: null,
    temperature: optionalNumber(input.temperature, 'temperature', 0, 2) ?? assistant.temperature,
    top_p: optionalNumber(input.top_p, 'top_p', 0, 1) ?? assistant.top_p,
    max_prompt_tokens: limit(input.max_prompt_tokens, 'max_prompt_tokens'),
    max_completion_tokens: limit(input.max_completion_tokens, 'max_completion_tokens'),
    truncation_strategy: input.truncation_strategy ?? { type: 'auto', last_messages: null },
    response_format: input.response_format ?? assistant.response_format ?? 'auto',
    tool_choice: input.tool_choice ?? 'auto',
    parallel_tool_calls: input.parallel_tool_calls ?? true,
  };
}
