import { newId, nowSeconds } from '../internal/ids';
import { normalizeMetadata, normalizeToolResources, normalizeTools, optionalNumber, requireModel } from './normalize-input';
import type { Assistant } from './types';

/** Body of `POST /v1/assistants` (and, all optional, of `POST /v1/assistants/{id}`). */
export interface AssistantInput {
  model?: string;
  name?: string | null;
  description?: string | null;
  instructions?: string | null;
  tools?: unknown[];
  tool_resources?: unknown;
  metadata?: Record<string, string> | null;
  temperature?: number | null;
  top_p?: number | null;
  response_format?: unknown;
}

/** A new assistant object from a create body, validated (400 naming the field). */
export function newAssistant(input: AssistantInput): Assistant {
  return {
    id: newId('asst_'),
    object: 'assistant',
    created_at: nowSeconds(),
    name: input.name ?? null,
    description: input.description ?? null,
    model: requireModel(input.model),
    instructions: input.instructions ?? null,
    tools: normalizeTools(input.tools),
    tool_resources: normalizeToolResources(input.tool_resources) ?? {},
    metadata: normalizeMetadata(input.metadata) ?? {},
    temperature: optionalNumber(input.temperature, 'temperature', 0, 2) ?? 1,
    top_p: optionalNumber(input.top_p, 'top_p', 0, 1) ?? 1,
    response_format: input.response_format ?? 'auto',
  };
}

/** Applies the fields an update body carries (absent or undefined fields keep their value). */
export function updateAssistant(assistant: Assistant, input: AssistantInput): Assistant {
  const has = (key: keyof AssistantInput) => Object.hasOwn(input, key) && input[key] !== undefined;
  if (has('model')) assistant.model = requireModel(input.model);
  if (has('name')) assistant.name = input.name ?? null;
  if (has('description')) assistant.description = input.description ?? null;
  if (has('instructions')) assistant.instructions = input.instructions ?? null;
  if (has('tools')) assistant.tools = normalizeTools(input.tools);
  if (has('tool_resources')) assistant.tool_resources = { ...assistant.tool_resources, ...normalizeToolResources(input.tool_resources) };
  if (has('metadata')) assistant.metadata = normalizeMetadata(input.metadata) ?? {};
  if (has('temperature')) assistant.temperature = optionalNumber(input.temperature, 'temperature', 0, 2) ?? 1;
  if (has('top_p')) assistant.top_p = optionalNumber(input.top_p, 'top_p', 0, 1) ?? 1;
  if (has('response_format')) assistant.response_format = input.response_format;
  return assistant;
}
