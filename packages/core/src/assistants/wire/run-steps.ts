import { type Static, Type } from '@sinclair/typebox';
import { ListPage, ListQuery, Metadata, Nullable, StringEnum, TaggedUnion } from '../../wire';

/*
 * Run steps as the `openai` SDK v7 types them (`beta.threads.runs.steps`): a `message_creation` step per
 * answer, a `tool_calls` step per model turn that asked for tools (`file_search` calls Fathom ran,
 * `function` calls the client answered).
 */

const closed = { additionalProperties: false } as const;

/** The `include[]` value that adds the passages' text to `file_search` results. */
export const FILE_SEARCH_CONTENT_INCLUDE = 'step_details.tool_calls[*].file_search.results[*].content';

export const RunStepInclude = StringEnum([FILE_SEARCH_CONTENT_INCLUDE]);
export type RunStepInclude = Static<typeof RunStepInclude>;

/**
 * `include[]` of a query string (the SDK's spelling; `include` is read too). A query string of one value
 * is coerced to a list.
 */
export const IncludeQuery = {
  'include[]': Type.Optional(Type.Array(RunStepInclude, { description: 'Extra data in run steps.' })),
  include: Type.Optional(Type.Array(RunStepInclude, { description: "Same as 'include[]'." })),
};

export const StepRetrieveParams = Type.Object(IncludeQuery);
export type StepRetrieveParams = Static<typeof StepRetrieveParams>;

export const StepListParams = ListQuery(IncludeQuery);
export type StepListParams = Static<typeof StepListParams>;

/** The passages' text, with `include[]=step_details.tool_calls[*].file_search.results[*].content` only. */
const FileSearchResult = Type.Object(
  {
    file_id: Type.String(),
    file_name: Type.String(),
    score: Type.Number(),
    content: Type.Optional(
      Type.Array(Type.Object({ type: Type.Optional(Type.Literal('text')), text: Type.Optional(Type.String()) }, closed)),
    ),
  },
  closed,
);

export const FileSearchToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('file_search'),
    file_search: Type.Object(
      {
        ranking_options: Type.Optional(
          Type.Object({ ranker: StringEnum(['auto', 'default_2024_08_21']), score_threshold: Type.Number() }, closed),
        ),
        results: Type.Optional(Type.Array(FileSearchResult)),
      },
      closed,
    ),
  },
  { title: 'FileSearchToolCall', ...closed },
);
export type FileSearchToolCall = Static<typeof FileSearchToolCall>;

export const FunctionToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String(), output: Nullable(Type.String()) }, closed),
  },
  { title: 'FunctionToolCall', ...closed },
);
export type FunctionToolCall = Static<typeof FunctionToolCall>;

export const ToolCall = TaggedUnion('type', [FileSearchToolCall, FunctionToolCall]);
export type ToolCall = Static<typeof ToolCall>;

export const MessageCreationStepDetails = Type.Object(
  { type: Type.Literal('message_creation'), message_creation: Type.Object({ message_id: Type.String() }, closed) },
  { title: 'MessageCreationStepDetails', ...closed },
);

export const ToolCallsStepDetails = Type.Object(
  { type: Type.Literal('tool_calls'), tool_calls: Type.Array(ToolCall) },
  { title: 'ToolCallsStepDetails', ...closed },
);

const Usage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }, closed);

export const RunStep = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread.run.step'),
    created_at: Type.Integer(),
    run_id: Type.String(),
    assistant_id: Type.String(),
    thread_id: Type.String(),
    type: StringEnum(['message_creation', 'tool_calls']),
    status: StringEnum(['in_progress', 'cancelled', 'failed', 'completed', 'expired']),
    cancelled_at: Nullable(Type.Integer()),
    completed_at: Nullable(Type.Integer()),
    expired_at: Nullable(Type.Integer()),
    failed_at: Nullable(Type.Integer()),
    last_error: Nullable(Type.Object({ code: StringEnum(['server_error', 'rate_limit_exceeded']), message: Type.String() }, closed)),
    step_details: TaggedUnion('type', [MessageCreationStepDetails, ToolCallsStepDetails]),
    usage: Nullable(Usage),
    metadata: Nullable(Metadata),
  },
  { title: 'RunStep', ...closed },
);
export type RunStep = Static<typeof RunStep>;

export const RunStepsPage = ListPage(RunStep);
export type RunStepsPage = Static<typeof RunStepsPage>;

/** A tool call as a `thread.run.step.delta` carries it (Fathom sends each call whole, once). */
const ToolCallDelta = TaggedUnion('type', [
  Type.Object(
    { index: Type.Integer(), type: Type.Literal('file_search'), id: Type.Optional(Type.String()), file_search: Type.Unknown() },
    closed,
  ),
  Type.Object(
    {
      index: Type.Integer(),
      type: Type.Literal('function'),
      id: Type.Optional(Type.String()),
      function: Type.Optional(
        Type.Object(
          { name: Type.Optional(Type.String()), arguments: Type.Optional(Type.String()), output: Type.Optional(Nullable(Type.String())) },
          closed,
        ),
      ),
    },
    closed,
  ),
]);

/** `thread.run.step.delta`. */
export const RunStepDeltaEvent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread.run.step.delta'),
    delta: Type.Object(
      {
        step_details: Type.Optional(
          TaggedUnion('type', [
            Type.Object(
              {
                type: Type.Literal('message_creation'),
                message_creation: Type.Optional(Type.Object({ message_id: Type.Optional(Type.String()) }, closed)),
              },
              closed,
            ),
            Type.Object({ type: Type.Literal('tool_calls'), tool_calls: Type.Optional(Type.Array(ToolCallDelta)) }, closed),
          ]),
        ),
      },
      closed,
    ),
  },
  { title: 'RunStepDeltaEvent', ...closed },
);
export type RunStepDeltaEvent = Static<typeof RunStepDeltaEvent>;
