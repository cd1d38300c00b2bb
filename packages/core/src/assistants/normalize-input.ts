import { checkContent } from '../internal/field-limits';
import { parseModelId } from '../models/model-id';
import type { ChatAdapterContract } from '../models/types';
import type {
  AssistantResponseFormatOption,
  AssistantTool,
  AssistantToolParam,
  ToolResources,
  ToolResourcesParam,
} from './wire/assistants';
import type { MessageContentParam } from './wire/messages';
import type { AssistantToolChoiceOption, RunCreateParams } from './wire/runs';

/*
 * From a request's params (validated at the edge against `wire/`) to the parts of the objects core stores:
 * the known fields copied (a request may carry fields Fathom does not know, an answer never does),
 * defaults filled in; and the rules of a request a schema cannot say.
 */

/** A model id given on create, update or a run must name a configured vendor: 400 naming `model` now, not a failed run later. */
export function checkModel(chat: ChatAdapterContract, model: string | null | undefined): void {
  if (!model || !chat.vendors) return;
  parseModelId(chat.resolveModel ? chat.resolveModel(model) : model, chat.vendors());
}

/** A message's text parts together at most 256,000 characters (a string's length is the schema's). */
export function checkContentTotal(content: MessageContentParam, param: string): void {
  if (Array.isArray(content)) checkContent(content, param);
}

/** The tools of a request, as an assistant or run keeps them (`ranking_options.ranker` defaults to `auto`). */
export function toTools(tools: readonly AssistantToolParam[] | null | undefined): AssistantTool[] {
  return (tools ?? []).map((tool): AssistantTool => {
    if (tool.type === 'file_search') {
      const options = tool.file_search;
      if (!options) return { type: 'file_search' };
      const { max_num_results: max, ranking_options: ranking } = options;
      return {
        type: 'file_search',
        file_search: {
          ...(max !== undefined ? { max_num_results: max } : {}),
          ...(ranking ? { ranking_options: { ranker: ranking.ranker ?? 'auto', score_threshold: ranking.score_threshold } } : {}),
        },
      };
    }
    const { name, description, parameters, strict } = tool.function;
    return {
      type: 'function',
      function: {
        name,
        ...(description !== undefined ? { description } : {}),
        parameters: parameters ?? { type: 'object', properties: {} },
        ...(strict !== undefined ? { strict } : {}),
      },
    };
  });
}

/** The stores and files of a request's `tool_resources` (store ids once each), or null without them. */
export function toToolResources(resources: ToolResourcesParam | null | undefined): ToolResources | null {
  if (!resources) return null;
  const out: ToolResources = {};
  if (resources.file_search) out.file_search = { vector_store_ids: [...new Set(resources.file_search.vector_store_ids ?? [])] };
  if (resources.code_interpreter) {
    const fileIds = resources.code_interpreter.file_ids;
    out.code_interpreter = fileIds ? { file_ids: [...fileIds] } : {};
  }
  return out;
}

/** A request's `response_format` as stored (`auto` when absent). */
export function toResponseFormat(format: AssistantResponseFormatOption | null | undefined): AssistantResponseFormatOption {
  if (!format || format === 'auto') return 'auto';
  if (format.type !== 'json_schema') return { type: format.type };
  const { name, description, schema, strict } = format.json_schema;
  return {
    type: 'json_schema',
    json_schema: {
      name,
      ...(description !== undefined ? { description } : {}),
      ...(schema !== undefined ? { schema } : {}),
      ...(strict !== undefined ? { strict } : {}),
    },
  };
}

/** A run request's `tool_choice` as stored (`auto` when absent). */
export function toToolChoice(choice: RunCreateParams['tool_choice']): AssistantToolChoiceOption {
  if (!choice) return 'auto';
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { type: 'function', function: { name: choice.function.name } };
  return { type: choice.type };
}
