import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Metadata, OptionalNullable, StringEnum, TaggedUnion, Unsupported } from '../../wire';

/*
 * The request of `POST /v1/chat/completions` as the `openai` SDK v7 types `ChatCompletionCreateParams`.
 * Every level is open: fields Fathom does not know are accepted, and those of the body reach
 * OpenAI-compatible upstreams unchanged (vLLM's `top_k`, Ollama's `options`, newer OpenAI parameters).
 * Values Fathom reads or maps (roles, tools, tool choice, token limits, logprobs, storage) are checked
 * exactly; values it only forwards are checked for their JSON type and left to the upstream (a
 * `detail`, a `reasoning_effort`). `null` is accepted on every optional field and read as absent.
 */

/** A JSON Schema object: the parameters of a function tool. */
const FunctionParameters = Type.Unsafe<Record<string, unknown>>({ type: 'object', description: 'A JSON Schema object.' });

const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() }, { title: 'ChatCompletionContentPartText' });

const ImagePart = Type.Object(
  {
    type: Type.Literal('image_url'),
    image_url: Type.Object({
      url: Type.String({ description: 'An http(s) URL or a base64 data URL.' }),
      detail: Type.Optional(Type.String()),
    }),
  },
  { title: 'ChatCompletionContentPartImage' },
);

const AudioPart = Type.Object(
  { type: Type.Literal('input_audio'), input_audio: Type.Object({ data: Type.String(), format: Type.String() }) },
  { title: 'ChatCompletionContentPartInputAudio' },
);

const FilePart = Type.Object(
  {
    type: Type.Literal('file'),
    file: Type.Object({
      file_data: Type.Optional(Type.String()),
      file_id: Type.Optional(Type.String()),
      filename: Type.Optional(Type.String()),
    }),
  },
  { title: 'ChatCompletionContentPartFile' },
);

const RefusalPart = Type.Object({ type: Type.Literal('refusal'), refusal: Type.String() }, { title: 'ChatCompletionContentPartRefusal' });

/** A string, or content parts of the kinds `parts` allows (told apart by `type`). */
function content<const Parts extends readonly TSchema[]>(parts: Parts) {
  return Type.Union([Type.String(), Type.Array(TaggedUnion('type', parts))]);
}

const TextContent = content([TextPart]);

/** A tool call of an earlier assistant turn: Fathom's tools are functions. */
export const ChatCompletionMessageToolCallParam = TaggedUnion(
  'type',
  [
    Type.Object({
      id: Type.String(),
      type: Type.Literal('function'),
      function: Type.Object({ name: Type.String(), arguments: Type.String({ description: 'The arguments as JSON text.' }) }),
    }),
  ],
  { title: 'ChatCompletionMessageToolCallParam' },
);

const name = Type.Optional(Type.String({ description: 'Tells participants of the same role apart.' }));

/** One message of `messages`, told apart by `role`. */
export const ChatCompletionMessageParam = TaggedUnion(
  'role',
  [
    Type.Object({ role: Type.Literal('developer'), content: TextContent, name }),
    Type.Object({ role: Type.Literal('system'), content: TextContent, name }),
    Type.Object({ role: Type.Literal('user'), content: content([TextPart, ImagePart, AudioPart, FilePart]), name }),
    Type.Object({
      role: Type.Literal('assistant'),
      content: OptionalNullable(content([TextPart, RefusalPart])),
      refusal: OptionalNullable(Type.String()),
      tool_calls: OptionalNullable(Type.Array(ChatCompletionMessageToolCallParam)),
      name,
    }),
    Type.Object({ role: Type.Literal('tool'), content: TextContent, tool_call_id: Type.String() }),
  ],
  { title: 'ChatCompletionMessageParam' },
);
export type ChatCompletionMessageParam = Static<typeof ChatCompletionMessageParam>;

/** A tool the model may call: Fathom's tools are functions (`custom` tools are not offered). */
export const ChatCompletionTool = TaggedUnion(
  'type',
  [
    Type.Object({
      type: Type.Literal('function'),
      function: Type.Object({
        name: Type.String({ minLength: 1 }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(FunctionParameters),
        strict: OptionalNullable(Type.Boolean()),
      }),
    }),
  ],
  { title: 'ChatCompletionTool' },
);
export type ChatCompletionTool = Static<typeof ChatCompletionTool>;

/** `none`, `auto`, `required`, or one function by name. */
export const ChatCompletionToolChoiceOption = Type.Union(
  [
    StringEnum(['none', 'auto', 'required']),
    TaggedUnion('type', [Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String() }) })]),
  ],
  { title: 'ChatCompletionToolChoiceOption' },
);
export type ChatCompletionToolChoiceOption = Static<typeof ChatCompletionToolChoiceOption>;

/** Text, any JSON object, or JSON matching a schema (OpenAI's shared `ResponseFormat…` types). */
export const ChatCompletionResponseFormat = TaggedUnion(
  'type',
  [
    Type.Object({ type: Type.Literal('text') }),
    Type.Object({ type: Type.Literal('json_object') }),
    Type.Object({
      type: Type.Literal('json_schema'),
      json_schema: Type.Object({
        name: Type.String(),
        description: Type.Optional(Type.String()),
        schema: Type.Optional(FunctionParameters),
        strict: OptionalNullable(Type.Boolean()),
      }),
    }),
  ],
  { title: 'ChatCompletionResponseFormat' },
);

export const ChatCompletionStreamOptions = Type.Object(
  {
    include_usage: Type.Optional(Type.Boolean({ description: 'End the stream with a chunk of empty `choices` carrying `usage`.' })),
    include_obfuscation: Type.Optional(Type.Boolean()),
  },
  { title: 'ChatCompletionStreamOptions' },
);

const TokenLimit = Type.Integer({ minimum: 1 });
const Penalty = Type.Number({ minimum: -2, maximum: 2 });

export const ChatCompletionCreateParams = Type.Object(
  {
    model: Type.String({ minLength: 1, description: 'A `<vendor>/<model>` id (or an alias) of a configured vendor.' }),
    messages: Type.Array(ChatCompletionMessageParam, { minItems: 1 }),
    tools: OptionalNullable(Type.Array(ChatCompletionTool)),
    tool_choice: OptionalNullable(ChatCompletionToolChoiceOption),
    response_format: OptionalNullable(ChatCompletionResponseFormat),
    temperature: OptionalNullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: OptionalNullable(Type.Number({ minimum: 0, maximum: 1 })),
    max_tokens: OptionalNullable(TokenLimit),
    max_completion_tokens: OptionalNullable(TokenLimit),
    stop: OptionalNullable(Type.Union([Type.String(), Type.Array(Type.String())])),
    seed: OptionalNullable(Type.Integer()),
    user: OptionalNullable(Type.String()),
    logprobs: OptionalNullable(
      Type.Boolean({ description: 'Return the log probability of each output token (OpenAI-compatible vendors).' }),
    ),
    top_logprobs: OptionalNullable(
      Type.Integer({ minimum: 0, maximum: 20, description: "The most likely alternatives at each position; needs 'logprobs' true." }),
    ),
    n: OptionalNullable(Type.Integer({ minimum: 1, maximum: 1, description: 'Fathom answers one choice per request.' })),
    stream: OptionalNullable(Type.Boolean()),
    stream_options: OptionalNullable(ChatCompletionStreamOptions),
    store: OptionalNullable(Type.Boolean({ description: 'Keep the completion (GET /v1/chat/completions/{completion_id}).' })),
    metadata: OptionalNullable(Metadata),
    // Passed through to OpenAI-compatible upstreams (an Anthropic vendor answers 400 naming them).
    frequency_penalty: OptionalNullable(Penalty),
    presence_penalty: OptionalNullable(Penalty),
    logit_bias: OptionalNullable(Type.Record(Type.String(), Type.Number())),
    parallel_tool_calls: OptionalNullable(Type.Boolean()),
    reasoning_effort: OptionalNullable(Type.String()),
    verbosity: OptionalNullable(Type.String()),
    service_tier: OptionalNullable(Type.String()),
    prediction: OptionalNullable(Type.Object({ type: Type.Literal('content'), content: TextContent })),
    prompt_cache_key: OptionalNullable(Type.String()),
    safety_identifier: OptionalNullable(Type.String()),
    web_search_options: OptionalNullable(Type.Object({})),
    // What Fathom's answer could not carry: refused rather than dropped.
    modalities: OptionalNullable(Type.Array(Type.Literal('text', { description: "Fathom's answers carry text." }))),
    audio: OptionalNullable(Unsupported("Fathom's answers carry text; leave 'audio' out.")),
    functions: Type.Optional(Unsupported("Use 'tools' and 'tool_choice'.")),
    function_call: Type.Optional(Unsupported("Use 'tools' and 'tool_choice'.")),
  },
  { title: 'ChatCompletionCreateParams' },
);
export type ChatCompletionCreateParams = Static<typeof ChatCompletionCreateParams>;

/** A request that answers one `chat.completion`. */
export type ChatCompletionCreateParamsNonStreaming = ChatCompletionCreateParams & { stream?: false | null };

/** A request that answers a stream of `chat.completion.chunk`s. */
export type ChatCompletionCreateParamsStreaming = ChatCompletionCreateParams & { stream: true };
