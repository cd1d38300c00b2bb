import { newId, nowSeconds } from '../internal/ids';
import { toResponseFormat, toToolResources, toTools } from './normalize-input';
import type { Assistant, AssistantCreateParams, AssistantUpdateParams } from './wire/assistants';

/** A new assistant object from create params (OpenAI's defaults: temperature and top_p 1, response_format `auto`). */
export function newAssistant(params: AssistantCreateParams): Assistant {
  return {
    id: newId('asst_'),
    object: 'assistant',
    created_at: nowSeconds(),
    name: params.name ?? null,
    description: params.description ?? null,
    model: params.model,
    instructions: params.instructions ?? null,
    tools: toTools(params.tools),
    tool_resources: toToolResources(params.tool_resources) ?? {},
    metadata: params.metadata ?? {},
    temperature: params.temperature ?? 1,
    top_p: params.top_p ?? 1,
    response_format: toResponseFormat(params.response_format),
  };
}

/** Applies the fields update params carry (absent ones keep their value; `null` resets to the default). */
export function updateAssistant(assistant: Assistant, params: AssistantUpdateParams): Assistant {
  if (params.model !== undefined) assistant.model = params.model;
  if (params.name !== undefined) assistant.name = params.name;
  if (params.description !== undefined) assistant.description = params.description;
  if (params.instructions !== undefined) assistant.instructions = params.instructions;
  if (params.tools !== undefined) assistant.tools = toTools(params.tools);
  if (params.tool_resources !== undefined)
    assistant.tool_resources = { ...assistant.tool_resources, ...toToolResources(params.tool_resources) };
  if (params.metadata !== undefined) assistant.metadata = params.metadata ?? {};
  if (params.temperature !== undefined) assistant.temperature = params.temperature ?? 1;
  if (params.top_p !== undefined) assistant.top_p = params.top_p ?? 1;
  if (params.response_format !== undefined) assistant.response_format = toResponseFormat(params.response_format);
  return assistant;
}
