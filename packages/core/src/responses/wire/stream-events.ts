import { type Static, Type } from '@sinclair/typebox';
import { Nullable, OpenObject, StringEnum, TaggedUnion } from '../../wire';
import { ResponseAnnotation, ResponseFileSearchToolCall, ResponseOutputItem, ResponseOutputRefusal, ResponseOutputText } from './items';
import { Response } from './responses';

/** Where an event applies: the output item and, for text, its content part. */
const At = { sequence_number: Type.Integer({ minimum: 0 }), output_index: Type.Integer({ minimum: 0 }) };
const InPart = { ...At, item_id: Type.String(), content_index: Type.Integer({ minimum: 0 }) };
const Logprobs = Type.Array(OpenObject({ token: Type.String() }));

function event<const Name extends string, const Fields extends Parameters<typeof Type.Object>[0]>(type: Name, fields: Fields) {
  return Type.Object({ type: Type.Literal(type), ...fields }, { additionalProperties: false });
}

/**
 * One server-sent event of a streamed response (`stream: true`, or `GET /v1/responses/{id}?stream=true`
 * for a background one): `event: <type>` and `data: <the event>`, as the `openai` SDK v7 types
 * `ResponseStreamEvent`. `response.failed` and `response.incomplete` end a stream as
 * `response.completed` does; `error` ends it when the run could not go on.
 */
export const ResponseStreamEvent = TaggedUnion(
  'type',
  [
    Type.Object(
      {
        type: StringEnum([
          'response.created',
          'response.queued',
          'response.in_progress',
          'response.completed',
          'response.incomplete',
          'response.failed',
        ]),
        sequence_number: At.sequence_number,
        response: Response,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: StringEnum(['response.output_item.added', 'response.output_item.done']), ...At, item: ResponseOutputItem },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: StringEnum(['response.content_part.added', 'response.content_part.done']),
        ...InPart,
        part: TaggedUnion('type', [ResponseOutputText, ResponseOutputRefusal]),
      },
      { additionalProperties: false },
    ),
    event('response.output_text.delta', { ...InPart, delta: Type.String(), logprobs: Logprobs }),
    event('response.output_text.done', { ...InPart, text: Type.String(), logprobs: Logprobs }),
    event('response.output_text.annotation.added', {
      ...InPart,
      annotation_index: Type.Integer({ minimum: 0 }),
      annotation: ResponseAnnotation,
    }),
    Type.Object(
      {
        type: StringEnum([
          'response.file_search_call.in_progress',
          'response.file_search_call.searching',
          'response.file_search_call.completed',
        ]),
        ...At,
        item_id: ResponseFileSearchToolCall.properties.id,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: StringEnum([
          'response.mcp_list_tools.in_progress',
          'response.mcp_list_tools.completed',
          'response.mcp_list_tools.failed',
          'response.mcp_call.in_progress',
          'response.mcp_call.completed',
          'response.mcp_call.failed',
        ]),
        ...At,
        item_id: Type.String(),
      },
      { additionalProperties: false },
    ),
    event('response.mcp_call_arguments.delta', { ...At, item_id: Type.String(), delta: Type.String() }),
    event('response.mcp_call_arguments.done', { ...At, item_id: Type.String(), arguments: Type.String() }),
    event('response.function_call_arguments.delta', { ...At, item_id: Type.String(), delta: Type.String() }),
    event('response.function_call_arguments.done', { ...At, item_id: Type.String(), name: Type.String(), arguments: Type.String() }),
    /** The stream stops on an error (the SDK raises it). Before the run started, it has no sequence number. */
    event('error', {
      sequence_number: Type.Optional(At.sequence_number),
      code: Nullable(Type.String()),
      message: Type.String(),
      param: Nullable(Type.String()),
    }),
  ],
  { title: 'ResponseStreamEvent' },
);
export type ResponseStreamEvent = Static<typeof ResponseStreamEvent>;
