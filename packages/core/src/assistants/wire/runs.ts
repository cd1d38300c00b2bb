import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { ListPage, ListQuery, Metadata, Nullable, OptionalNullable, StringEnum, TaggedUnion } from '../../wire';
import {
  AssistantResponseFormatOption,
  AssistantResponseFormatOptionParam,
  AssistantTool,
  AssistantToolsParam,
  Temperature,
  TopP,
} from './assistants';
import { MessageCreateParams } from './messages';
import { IncludeQuery } from './run-steps';

/*
 * Runs as the `openai` SDK v7 types them (`beta.threads.runs`): create (with `stream`), retrieve, update,
 * list, cancel, submit tool outputs. `include[]` of a run-creating request is a query parameter.
 */

const closed = { additionalProperties: false } as const;

/** A token budget of a run: at least 256, as OpenAI's. */
const TokenBudget = Type.Integer({ minimum: 256 });

const TOOL_CHOICE_MODES = ['none', 'auto', 'required'] as const;

/** `tool_choice` of a request: a mode, or one tool the model must call. */
export const AssistantToolChoiceOptionParam = Type.Union(
  [
    StringEnum(TOOL_CHOICE_MODES),
    TaggedUnion('type', [
      Type.Object({ type: Type.Literal('file_search') }),
      Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String() }) }),
    ]),
  ],
  { title: 'AssistantToolChoiceOptionParam' },
);

/** `tool_choice` of a run. */
export const AssistantToolChoiceOption = Type.Union(
  [
    StringEnum(TOOL_CHOICE_MODES),
    Type.Object(
      {
        type: StringEnum(['function', 'code_interpreter', 'file_search']),
        function: Type.Optional(Type.Object({ name: Type.String() }, closed)),
      },
      closed,
    ),
  ],
  { title: 'AssistantToolChoiceOption' },
);
export type AssistantToolChoiceOption = Static<typeof AssistantToolChoiceOption>;

const TRUNCATION_TYPES = ['auto', 'last_messages'] as const;

/**
 * What a run-creating request may set (`POST /v1/threads/{id}/runs` and `POST /v1/threads/runs`): each
 * overrides the assistant's value for this run.
 */
export const RunSettingsParams = {
  instructions: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.instructions })),
  model: OptionalNullable(Type.String()),
  tools: OptionalNullable(AssistantToolsParam),
  metadata: OptionalNullable(Metadata),
  temperature: OptionalNullable(Temperature),
  top_p: OptionalNullable(TopP),
  max_prompt_tokens: OptionalNullable(TokenBudget),
  max_completion_tokens: OptionalNullable(TokenBudget),
  truncation_strategy: OptionalNullable(
    Type.Object({ type: StringEnum(TRUNCATION_TYPES), last_messages: OptionalNullable(Type.Integer({ minimum: 1 })) }),
  ),
  response_format: OptionalNullable(AssistantResponseFormatOptionParam),
  tool_choice: OptionalNullable(AssistantToolChoiceOptionParam),
  parallel_tool_calls: Type.Optional(Type.Boolean()),
  /** Answer as server-sent events (the route's choice; core's streaming methods are separate). */
  stream: OptionalNullable(Type.Boolean()),
};

export const RunCreateParams = Type.Object(
  {
    assistant_id: Type.String({ minLength: 1 }),
    additional_instructions: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.instructions })),
    additional_messages: OptionalNullable(Type.Array(MessageCreateParams)),
    ...RunSettingsParams,
  },
  { title: 'RunCreateParams' },
);
export type RunCreateParams = Static<typeof RunCreateParams>;

/** The query of a run-creating request. */
export const RunCreateQuery = Type.Object(IncludeQuery);

export const RunUpdateParams = Type.Object({ metadata: OptionalNullable(Metadata) }, { title: 'RunUpdateParams' });
export type RunUpdateParams = Static<typeof RunUpdateParams>;

export const RunListParams = ListQuery();
export type RunListParams = Static<typeof RunListParams>;

/** The outputs of the calls a run in `requires_action` waits for: all of them, at once (checked in core). */
export const RunSubmitToolOutputsParams = Type.Object(
  {
    tool_outputs: Type.Array(Type.Object({ tool_call_id: Type.String(), output: Type.Optional(Type.String()) })),
    stream: OptionalNullable(Type.Boolean()),
  },
  { title: 'RunSubmitToolOutputsParams' },
);
export type RunSubmitToolOutputsParams = Static<typeof RunSubmitToolOutputsParams>;

export const RUN_STATUSES = [
  'queued',
  'in_progress',
  'requires_action',
  'cancelling',
  'cancelled',
  'failed',
  'completed',
  'incomplete',
  'expired',
] as const;
export const RunStatus = StringEnum(RUN_STATUSES);
export type RunStatus = Static<typeof RunStatus>;

/** A function call the run waits for the client to answer. */
export const RequiredActionFunctionToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String() }, closed),
  },
  { title: 'RequiredActionFunctionToolCall', ...closed },
);
export type RequiredActionFunctionToolCall = Static<typeof RequiredActionFunctionToolCall>;

const Usage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }, closed);

export const Run = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread.run'),
    created_at: Type.Integer(),
    thread_id: Type.String(),
    assistant_id: Type.String(),
    status: RunStatus,
    required_action: Nullable(
      Type.Object(
        {
          type: Type.Literal('submit_tool_outputs'),
          submit_tool_outputs: Type.Object({ tool_calls: Type.Array(RequiredActionFunctionToolCall) }, closed),
        },
        closed,
      ),
    ),
    last_error: Nullable(
      Type.Object({ code: StringEnum(['server_error', 'rate_limit_exceeded', 'invalid_prompt']), message: Type.String() }, closed),
    ),
    expires_at: Nullable(Type.Integer()),
    started_at: Nullable(Type.Integer()),
    cancelled_at: Nullable(Type.Integer()),
    failed_at: Nullable(Type.Integer()),
    completed_at: Nullable(Type.Integer()),
    incomplete_details: Nullable(
      Type.Object({ reason: Type.Optional(StringEnum(['max_completion_tokens', 'max_prompt_tokens'])) }, closed),
    ),
    model: Type.String(),
    instructions: Type.String(),
    tools: Type.Array(AssistantTool),
    metadata: Nullable(Metadata),
    usage: Nullable(Usage),
    temperature: OptionalNullable(Type.Number()),
    top_p: OptionalNullable(Type.Number()),
    max_prompt_tokens: Nullable(Type.Integer()),
    max_completion_tokens: Nullable(Type.Integer()),
    truncation_strategy: Nullable(
      Type.Object({ type: StringEnum(TRUNCATION_TYPES), last_messages: OptionalNullable(Type.Integer()) }, closed),
    ),
    response_format: Nullable(AssistantResponseFormatOption),
    tool_choice: Nullable(AssistantToolChoiceOption),
    parallel_tool_calls: Type.Boolean(),
  },
  { title: 'Run', ...closed },
);
export type Run = Static<typeof Run>;

export const RunsPage = ListPage(Run);
export type RunsPage = Static<typeof RunsPage>;
