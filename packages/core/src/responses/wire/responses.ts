import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { ListPage, ListQuery, Metadata, Nullable, OpenObject, OptionalNullable, StringEnum, Unsupported } from '../../wire';
import { ResponseInputItemParam, ResponseItem, ResponseOutputItem } from './items';

/** Every `include` value OpenAI documents; those that do not apply to Fathom's tools are accepted and ignored. */
export const RESPONSE_INCLUDABLES = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
] as const;

export const ResponseIncludable = StringEnum(RESPONSE_INCLUDABLES, { title: 'ResponseIncludable' });
export type ResponseIncludable = Static<typeof ResponseIncludable>;

/**
 * A tool of a request, by `type`: `function` (`name`, `parameters`, `strict`) and `file_search`
 * (`vector_store_ids`, `max_num_results`, `filters`, `ranking_options`). Each type's fields, and the
 * types Fathom does not run, are refused naming the field where core reads the tools.
 */
export const ResponseToolParam = OpenObject({ type: Type.String() }, { title: 'ResponseToolParam' });

/** `tool_choice`: `auto`, `none`, `required`, `{type: 'function', name}`, `{type: 'file_search'}` or `{type: 'mcp', server_label, name?}`. */
export const ResponseToolChoiceParam = Type.Union(
  [
    StringEnum(['auto', 'none', 'required']),
    Type.Object({ type: Type.String(), name: OptionalNullable(Type.String()), server_label: Type.Optional(Type.String()) }),
  ],
  { title: 'ResponseToolChoiceParam' },
);

/** `text`: the answer's format (`text`, `json_object`, `json_schema` with `name` and `schema`). */
export const ResponseTextConfigParam = Type.Object(
  { format: OptionalNullable(OpenObject({ type: Type.String() })) },
  { title: 'ResponseTextConfigParam' },
);

/**
 * `POST /v1/responses`. `null` reads as absent wherever OpenAI allows it. Fields Fathom has no use for
 * (prompt caching, service tier, moderation settings…) are accepted and ignored. Rules across fields
 * (`previous_response_id` or `conversation`, `background` needs `store`, `input` unless the context
 * comes from elsewhere) and each tool's and item's own fields are core's (`readResponseRequest`).
 */
export const ResponseCreateParams = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    input: OptionalNullable(
      Type.Union([Type.String(), Type.Array(ResponseInputItemParam)], { description: 'A user message, or an array of input items.' }),
    ),
    instructions: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.instructions })),
    previous_response_id: OptionalNullable(Type.String()),
    conversation: OptionalNullable(
      Type.Union([Type.String({ minLength: 1 }), Type.Object({ id: Type.String({ minLength: 1 }) })], {
        description: 'A conversation id, or {id}.',
      }),
    ),
    tools: OptionalNullable(Type.Array(ResponseToolParam)),
    tool_choice: OptionalNullable(ResponseToolChoiceParam),
    text: OptionalNullable(ResponseTextConfigParam),
    reasoning: OptionalNullable(Type.Object({ effort: OptionalNullable(Type.String()), summary: OptionalNullable(Type.String()) })),
    temperature: OptionalNullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: OptionalNullable(Type.Number({ minimum: 0, maximum: 1 })),
    max_output_tokens: OptionalNullable(Type.Integer({ minimum: 1 })),
    max_tool_calls: OptionalNullable(Type.Integer({ minimum: 1, maximum: 1000, description: 'Most file searches the response may make.' })),
    top_logprobs: OptionalNullable(Type.Integer({ minimum: 0, maximum: 20 })),
    parallel_tool_calls: OptionalNullable(Type.Boolean()),
    truncation: OptionalNullable(StringEnum(['auto', 'disabled'])),
    store: OptionalNullable(Type.Boolean()),
    background: OptionalNullable(Type.Boolean()),
    stream: OptionalNullable(Type.Boolean()),
    include: OptionalNullable(Type.Array(ResponseIncludable)),
    metadata: OptionalNullable(Metadata),
    user: OptionalNullable(Type.String()),
    safety_identifier: OptionalNullable(Type.String()),
    prompt_cache_key: OptionalNullable(Type.String()),
    service_tier: OptionalNullable(Type.String()),
    prompt: Type.Optional(Unsupported('Stored prompt templates are not available: send the instructions and input.')),
  },
  { title: 'ResponseCreateParams' },
);
export type ResponseCreateParams = Static<typeof ResponseCreateParams>;

/**
 * `include` of a query string: `include[]` (the SDK's spelling) or `include`, repeated for several
 * values.
 */
const IncludeQuery = {
  'include[]': Type.Optional(Type.Array(ResponseIncludable, { description: 'Extra data in the output items.' })),
  include: Type.Optional(Type.Array(ResponseIncludable, { description: "Same as 'include[]'." })),
};

/** The `include` values of a query, whichever spelling it used. */
export function includeOf(query: {
  include?: readonly ResponseIncludable[];
  'include[]'?: readonly ResponseIncludable[];
}): ResponseIncludable[] {
  return [...(query['include[]'] ?? []), ...(query.include ?? [])];
}

/** `GET /v1/responses/{id}`: `stream=true` follows a background response's events after `starting_after`. */
export const ResponseRetrieveParams = Type.Object(
  {
    ...IncludeQuery,
    stream: Type.Optional(Type.Boolean({ description: 'Stream the events of a background response.' })),
    starting_after: Type.Optional(Type.Integer({ minimum: 0, description: 'With stream=true: the sequence number to resume after.' })),
    include_obfuscation: Type.Optional(Type.Boolean({ description: 'Accepted and ignored.' })),
  },
  { title: 'ResponseRetrieveParams' },
);
export type ResponseRetrieveParams = Static<typeof ResponseRetrieveParams>;

/** `GET /v1/responses/{id}/input_items`. */
export const InputItemListParams = ListQuery(IncludeQuery);
export type InputItemListParams = Static<typeof InputItemListParams>;

/** `usage` of a finished response. Fathom does no prompt caching: the cache counts are 0. */
export const ResponseUsage = Type.Object(
  {
    input_tokens: Type.Integer(),
    input_tokens_details: Type.Object(
      { cached_tokens: Type.Integer(), cache_write_tokens: Type.Integer() },
      { additionalProperties: false },
    ),
    output_tokens: Type.Integer(),
    output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer() }, { additionalProperties: false }),
    total_tokens: Type.Integer(),
  },
  { additionalProperties: false, title: 'ResponseUsage' },
);
export type ResponseUsage = Static<typeof ResponseUsage>;

/** A failed response's `error`. */
export const ResponseError = Type.Object(
  { code: StringEnum(['server_error', 'rate_limit_exceeded']), message: Type.String() },
  { additionalProperties: false, title: 'ResponseError' },
);

/** A field of the request as the response echoes it: what the client sent (checked as the request schema says). */
const Echoed = OpenObject({});

/**
 * A response (`Response` in the SDK). Optional is not nullable: `usage` appears when the response ends,
 * `user` when the request named one. `store` is not in the SDK v7 type but OpenAI's API answers it, and
 * clients read it: Fathom keeps it.
 */
export const Response = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    access_programs: Type.Null({ description: "OpenAI's Cyber access programs: none on Fathom." }),
    created_at: Type.Integer(),
    status: StringEnum(['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete']),
    background: OptionalNullable(Type.Boolean()),
    completed_at: OptionalNullable(Type.Integer()),
    error: Nullable(ResponseError),
    incomplete_details: Nullable(
      Type.Object({ reason: StringEnum(['max_output_tokens', 'content_filter']) }, { additionalProperties: false }),
    ),
    instructions: Nullable(Type.String()),
    max_output_tokens: OptionalNullable(Type.Integer()),
    max_tool_calls: OptionalNullable(Type.Integer()),
    metadata: Nullable(Metadata),
    model: Type.String(),
    output: Type.Array(ResponseOutputItem),
    output_text: Type.String(),
    parallel_tool_calls: Type.Boolean(),
    previous_response_id: OptionalNullable(Type.String()),
    conversation: OptionalNullable(Type.Object({ id: Type.String() }, { additionalProperties: false })),
    reasoning: OptionalNullable(
      Type.Object({ effort: OptionalNullable(Type.String()), summary: OptionalNullable(Type.String()) }, { additionalProperties: false }),
    ),
    temperature: Nullable(Type.Number()),
    top_p: Nullable(Type.Number()),
    top_logprobs: OptionalNullable(Type.Integer()),
    tool_choice: Type.Union([StringEnum(['auto', 'none', 'required']), Echoed]),
    tools: Type.Array(Echoed),
    text: Type.Optional(Echoed),
    truncation: OptionalNullable(StringEnum(['auto', 'disabled'])),
    store: Type.Optional(Type.Boolean()),
    user: Type.Optional(Type.String()),
    safety_identifier: OptionalNullable(Type.String()),
    prompt_cache_key: OptionalNullable(Type.String()),
    service_tier: OptionalNullable(Type.String()),
    usage: Type.Optional(ResponseUsage),
  },
  { additionalProperties: false, title: 'Response' },
);
export type Response = Static<typeof Response>;

/** `DELETE /v1/responses/{id}` (the SDK reads no body; OpenAI answers this one). */
export const ResponseDeleted = Type.Object(
  { id: Type.String(), object: Type.Literal('response'), deleted: Type.Boolean() },
  { additionalProperties: false, title: 'ResponseDeleted' },
);
export type ResponseDeleted = Static<typeof ResponseDeleted>;

/** `GET /v1/responses/{id}/input_items`. */
export const ResponseItemList = ListPage(ResponseItem);
export type ResponseItemList = Static<typeof ResponseItemList>;
