import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { Deleted, ListPage, ListQuery, Metadata, Nullable, OptionalNullable, StringEnum, TaggedUnion, Unsupported } from '../../wire';

/*
 * Assistants as the `openai` SDK v7 types them (`beta.assistants`), and the parts runs and threads share
 * with them: tools, tool resources, response formats. Requests accept fields Fathom does not know (at
 * every level); answers declare exactly the fields Fathom sends (`additionalProperties: false`), so core
 * copies the known fields of a request into the objects it stores (`normalize-input.ts`).
 *
 * Fathom offers the `file_search` and `function` tools; `code_interpreter` is refused (400 naming
 * `tools[i].type`), as are `tool_resources.file_search.vector_stores` (create the store first).
 */

/** An answer object: exactly these fields. */
const closed = { additionalProperties: false } as const;

/** `tools[]`, `ranking_options` and the rest differ between a request (open) and an answer (closed) only by that. */
const shape = (answer: boolean) => (answer ? closed : {});

const RANKERS = ['auto', 'default_2024_08_21'] as const;

function fileSearchTool(answer: boolean) {
  return Type.Object(
    {
      type: Type.Literal('file_search'),
      file_search: Type.Optional(
        Type.Object(
          {
            max_num_results: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 50, description: 'Passages per search, 1 to 50 (Fathom returns at most 8).' }),
            ),
            ranking_options: Type.Optional(
              Type.Object(
                { score_threshold: Type.Number({ minimum: 0, maximum: 1 }), ranker: Type.Optional(StringEnum(RANKERS)) },
                shape(answer),
              ),
            ),
          },
          shape(answer),
        ),
      ),
    },
    shape(answer),
  );
}

/** A JSON Schema object: the parameters of a function tool. */
export const FunctionParameters = Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'A JSON Schema object.' });

function functionTool(answer: boolean) {
  return Type.Object(
    {
      type: Type.Literal('function'),
      function: Type.Object(
        {
          name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: "A name of 1 to 64 letters, digits, '_' or '-'." }),
          description: Type.Optional(Type.String()),
          parameters: Type.Optional(FunctionParameters),
          strict: OptionalNullable(Type.Boolean()),
        },
        shape(answer),
      ),
    },
    shape(answer),
  );
}

/** A tool of a request: `file_search` or `function` (`code_interpreter` is not offered). */
export const AssistantToolParam = TaggedUnion('type', [fileSearchTool(false), functionTool(false)], { title: 'AssistantToolParam' });
export type AssistantToolParam = Static<typeof AssistantToolParam>;

/** A tool of an assistant or run. */
export const AssistantTool = TaggedUnion('type', [fileSearchTool(true), functionTool(true)], { title: 'AssistantTool' });
export type AssistantTool = Static<typeof AssistantTool>;

/** `tools` of a request: at most 128. */
export const AssistantToolsParam = Type.Array(AssistantToolParam, { maxItems: 128 });

/** `tool_resources` of a request: the vector stores `file_search` searches (the account's own, checked in core). */
export const ToolResourcesParam = Type.Object(
  {
    code_interpreter: Type.Optional(Type.Object({ file_ids: Type.Optional(Type.Array(Type.String())) })),
    file_search: Type.Optional(
      Type.Object({
        vector_store_ids: Type.Optional(Type.Array(Type.String())),
        vector_stores: Type.Optional(Unsupported("Create the store with POST /v1/vector_stores and pass its id in 'vector_store_ids'.")),
      }),
    ),
  },
  { title: 'ToolResourcesParam' },
);
export type ToolResourcesParam = Static<typeof ToolResourcesParam>;

/** `tool_resources` of an assistant or thread. */
export const ToolResources = Type.Object(
  {
    code_interpreter: Type.Optional(Type.Object({ file_ids: Type.Optional(Type.Array(Type.String())) }, closed)),
    file_search: Type.Optional(Type.Object({ vector_store_ids: Type.Optional(Type.Array(Type.String())) }, closed)),
  },
  { title: 'ToolResources', ...closed },
);
export type ToolResources = Static<typeof ToolResources>;

function responseFormat(answer: boolean, title: string) {
  return Type.Union(
    [
      Type.Literal('auto'),
      TaggedUnion('type', [
        Type.Object({ type: Type.Literal('text') }, shape(answer)),
        Type.Object({ type: Type.Literal('json_object') }, shape(answer)),
        Type.Object(
          {
            type: Type.Literal('json_schema'),
            json_schema: Type.Object(
              {
                name: Type.String(),
                description: Type.Optional(Type.String()),
                schema: Type.Optional(FunctionParameters),
                strict: OptionalNullable(Type.Boolean()),
              },
              shape(answer),
            ),
          },
          shape(answer),
        ),
      ]),
    ],
    { title },
  );
}

/** `response_format` of a request: `auto`, text, a JSON object, or a JSON Schema. */
export const AssistantResponseFormatOptionParam = responseFormat(false, 'AssistantResponseFormatOptionParam');

/** `response_format` of an assistant or run. */
export const AssistantResponseFormatOption = responseFormat(true, 'AssistantResponseFormatOption');
export type AssistantResponseFormatOption = Static<typeof AssistantResponseFormatOption>;

export const Temperature = Type.Number({ minimum: 0, maximum: 2 });
export const TopP = Type.Number({ minimum: 0, maximum: 1 });

/** The settings an assistant's create and update share (`model` is required on create). */
function assistantSettings<Model extends TSchema>(model: Model) {
  return {
    model,
    name: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.name })),
    description: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.description })),
    instructions: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.instructions })),
    tools: Type.Optional(AssistantToolsParam),
    tool_resources: OptionalNullable(ToolResourcesParam),
    metadata: OptionalNullable(Metadata),
    temperature: OptionalNullable(Temperature),
    top_p: OptionalNullable(TopP),
    response_format: OptionalNullable(AssistantResponseFormatOptionParam),
  };
}

const ModelId = Type.String({ minLength: 1, description: 'A `<vendor>/<model>` id (or an alias) of a configured vendor.' });

export const AssistantCreateParams = Type.Object(assistantSettings(ModelId), { title: 'AssistantCreateParams' });
export type AssistantCreateParams = Static<typeof AssistantCreateParams>;

export const AssistantUpdateParams = Type.Object(assistantSettings(Type.Optional(ModelId)), { title: 'AssistantUpdateParams' });
export type AssistantUpdateParams = Static<typeof AssistantUpdateParams>;

export const AssistantListParams = ListQuery();
export type AssistantListParams = Static<typeof AssistantListParams>;

export const Assistant = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('assistant'),
    created_at: Type.Integer(),
    name: Nullable(Type.String()),
    description: Nullable(Type.String()),
    model: Type.String(),
    instructions: Nullable(Type.String()),
    tools: Type.Array(AssistantTool),
    metadata: Nullable(Metadata),
    response_format: OptionalNullable(AssistantResponseFormatOption),
    temperature: OptionalNullable(Type.Number()),
    top_p: OptionalNullable(Type.Number()),
    tool_resources: OptionalNullable(ToolResources),
  },
  { title: 'Assistant', ...closed },
);
export type Assistant = Static<typeof Assistant>;

export const AssistantDeleted = Deleted('assistant.deleted');
export type AssistantDeleted = Static<typeof AssistantDeleted>;

export const AssistantsPage = ListPage(Assistant);
export type AssistantsPage = Static<typeof AssistantsPage>;
