import { type Static, Type } from '@sinclair/typebox';
import { Deleted, ListPage, ListQuery, Metadata, Nullable, OptionalNullable, StringEnum, TaggedUnion } from '../../wire';

/*
 * The answers of `/v1/chat/completions` and its stored completions as the `openai` SDK v7 types them
 * (`ChatCompletion`, `ChatCompletionChunk`, `ChatCompletionStoreMessage`…), with exactly the fields
 * Fathom sends (`additionalProperties: false`). Fathom's tool calls are functions; its finish reasons
 * are `stop`, `length`, `tool_calls` and `content_filter`.
 */

const closed = { additionalProperties: false } as const;

export const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter'] as const;

/** The log probability of one output token, with its most likely alternatives. */
export const ChatCompletionTokenLogprob = Type.Object(
  {
    token: Type.String(),
    logprob: Type.Number(),
    bytes: Nullable(Type.Array(Type.Integer())),
    top_logprobs: Type.Array(
      Type.Object({ token: Type.String(), logprob: Type.Number(), bytes: Nullable(Type.Array(Type.Integer())) }, closed),
    ),
  },
  { title: 'ChatCompletionTokenLogprob', ...closed },
);
export type ChatCompletionTokenLogprob = Static<typeof ChatCompletionTokenLogprob>;

/** `choices[].logprobs`: the tokens of the content and of a refusal. */
const ChoiceLogprobs = Type.Object(
  { content: Nullable(Type.Array(ChatCompletionTokenLogprob)), refusal: Nullable(Type.Array(ChatCompletionTokenLogprob)) },
  closed,
);

export const CompletionUsage = Type.Object(
  {
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
    // Present when the upstream reported prompt tokens read from its cache (charged at `cache_read_input_token_cost`).
    prompt_tokens_details: Type.Optional(Type.Object({ cached_tokens: Type.Integer() }, closed)),
  },
  { title: 'CompletionUsage', ...closed },
);
export type CompletionUsage = Static<typeof CompletionUsage>;

/** A function call the model asks for (`arguments` is JSON text). */
export const ChatCompletionMessageToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String() }, closed),
  },
  { title: 'ChatCompletionMessageToolCall', ...closed },
);
export type ChatCompletionMessageToolCall = Static<typeof ChatCompletionMessageToolCall>;

/** The model's answer: text, or tool calls (with `content` null or the text before them). */
export const ChatCompletionMessage = Type.Object(
  {
    role: Type.Literal('assistant'),
    content: Nullable(Type.String()),
    refusal: Nullable(Type.String()),
    tool_calls: Type.Optional(Type.Array(ChatCompletionMessageToolCall)),
  },
  { title: 'ChatCompletionMessage', ...closed },
);
export type ChatCompletionMessage = Static<typeof ChatCompletionMessage>;

export const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String({ description: 'The `<vendor>/<model>` that answered.' }),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          message: ChatCompletionMessage,
          logprobs: Nullable(ChoiceLogprobs),
          finish_reason: StringEnum(FINISH_REASONS),
        },
        closed,
      ),
    ),
    usage: Type.Optional(CompletionUsage),
    metadata: OptionalNullable(Metadata),
  },
  { title: 'ChatCompletion', ...closed },
);
export type ChatCompletion = Static<typeof ChatCompletion>;

/**
 * One `data:` line of a streamed completion: the first carries the role, then text and tool-call
 * deltas, one the `finish_reason`, and with `stream_options.include_usage` a last one with empty
 * `choices` and the `usage`. The stream ends with `data: [DONE]`; a failure after it began is one
 * `data: {"error": {…}}` line (OpenAI's error object), which the SDK raises.
 */
export const ChatCompletionChunk = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion.chunk'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object(
        {
          index: Type.Integer(),
          delta: Type.Object(
            {
              role: Type.Optional(Type.Literal('assistant')),
              content: OptionalNullable(Type.String()),
              tool_calls: Type.Optional(
                Type.Array(
                  Type.Object(
                    {
                      index: Type.Integer(),
                      id: Type.Optional(Type.String()),
                      type: Type.Optional(Type.Literal('function')),
                      function: Type.Optional(
                        Type.Object({ name: Type.Optional(Type.String()), arguments: Type.Optional(Type.String()) }, closed),
                      ),
                    },
                    closed,
                  ),
                ),
              ),
            },
            closed,
          ),
          logprobs: OptionalNullable(ChoiceLogprobs),
          finish_reason: Nullable(StringEnum(FINISH_REASONS)),
        },
        closed,
      ),
    ),
    usage: OptionalNullable(CompletionUsage),
  },
  { title: 'ChatCompletionChunk', ...closed },
);
export type ChatCompletionChunk = Static<typeof ChatCompletionChunk>;

// Stored completions (`store: true`).

/** `metadata[key]=value` filters (the SDK's encoding of `metadata`), `model`, and the page. */
export const ChatCompletionListParams = Type.Omit(
  ListQuery({
    model: Type.Optional(Type.String({ description: 'Only completions of this model.' })),
    metadata: Type.Optional(Metadata),
  }),
  ['before'],
  { title: 'ChatCompletionListParams' },
);
export type ChatCompletionListParams = Static<typeof ChatCompletionListParams>;

export const ChatCompletionUpdateParams = Type.Object({ metadata: Nullable(Metadata) }, { title: 'ChatCompletionUpdateParams' });
export type ChatCompletionUpdateParams = Static<typeof ChatCompletionUpdateParams>;

export const ChatCompletionDeleted = Deleted('chat.completion.deleted');
export type ChatCompletionDeleted = Static<typeof ChatCompletionDeleted>;

export const ChatCompletionsPage = ListPage(ChatCompletion);
export type ChatCompletionsPage = Static<typeof ChatCompletionsPage>;

export const ChatCompletionMessageListParams = Type.Omit(ListQuery(), ['before'], { title: 'ChatCompletionMessageListParams' });
export type ChatCompletionMessageListParams = Static<typeof ChatCompletionMessageListParams>;

/** The text and image parts of a stored request message (`content_parts`). */
const StoredContentPart = TaggedUnion('type', [
  Type.Object({ type: Type.Literal('text'), text: Type.String() }, closed),
  Type.Object(
    { type: Type.Literal('image_url'), image_url: Type.Object({ url: Type.String(), detail: Type.Optional(Type.String()) }, closed) },
    closed,
  ),
]);

/**
 * One request message of a stored completion, with an id `<completion id>-<index>`. `content` is its
 * text (the text parts joined); `content_parts` its text and image parts when it was sent as parts. The
 * SDK types `role` as `assistant` only; the messages are the request's, so `role` is theirs, and `name`
 * and `tool_call_id` are kept as OpenAI's API answers them.
 */
export const ChatCompletionStoreMessage = Type.Object(
  {
    id: Type.String(),
    role: StringEnum(['developer', 'system', 'user', 'assistant', 'tool']),
    content: Nullable(Type.String()),
    refusal: Nullable(Type.String()),
    content_parts: OptionalNullable(Type.Array(StoredContentPart)),
    tool_calls: Type.Optional(Type.Array(ChatCompletionMessageToolCall)),
    name: Type.Optional(Type.String()),
    tool_call_id: Type.Optional(Type.String()),
  },
  { title: 'ChatCompletionStoreMessage', ...closed },
);
export type ChatCompletionStoreMessage = Static<typeof ChatCompletionStoreMessage>;

export const ChatCompletionStoreMessagesPage = ListPage(ChatCompletionStoreMessage);
export type ChatCompletionStoreMessagesPage = Static<typeof ChatCompletionStoreMessagesPage>;
