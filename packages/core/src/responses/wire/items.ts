import { type Static, Type } from '@sinclair/typebox';
import { Nullable, OpenObject, StringEnum, TaggedUnion } from '../../wire';

/**
 * The items of Responses and Conversations as the `openai` SDK v7 types them, in the one stored form
 * Fathom keeps (`responses/items.ts` normalises what a client sends into it): a response's `output`,
 * its input items, a conversation's items. What a client sent back verbatim (annotations of its own
 * assistant messages, search results it replays) keeps its shape: those parts admit further fields.
 */

/** Statuses of messages, function calls and reasoning items. */
const ItemStatus = StringEnum(['in_progress', 'completed', 'incomplete']);

/** An annotation of an `output_text` part: Fathom writes `file_citation`s; a client's own are kept as sent. */
export const ResponseAnnotation = OpenObject({ type: Type.String() }, { title: 'ResponseAnnotation' });

/** A `file_citation` annotation, as Fathom's `file_search` writes them. */
export const ResponseFileCitation = Type.Object(
  { type: Type.Literal('file_citation'), file_id: Type.String(), filename: Type.String(), index: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false, title: 'ResponseFileCitation' },
);

/** One token's log probability: Fathom reports none (`logprobs: []`), so the entries are not declared further. */
const Logprob = OpenObject({ token: Type.String() });

/** `output_text`: the assistant's text, its citations and (always empty) `logprobs`. */
export const ResponseOutputText = Type.Object(
  { type: Type.Literal('output_text'), text: Type.String(), annotations: Type.Array(ResponseAnnotation), logprobs: Type.Array(Logprob) },
  { additionalProperties: false, title: 'ResponseOutputText' },
);

export const ResponseOutputRefusal = Type.Object(
  { type: Type.Literal('refusal'), refusal: Type.String() },
  { additionalProperties: false, title: 'ResponseOutputRefusal' },
);

export const ResponseInputText = Type.Object(
  { type: Type.Literal('input_text'), text: Type.String() },
  { additionalProperties: false, title: 'ResponseInputText' },
);

export const ResponseInputImage = Type.Object(
  {
    type: Type.Literal('input_image'),
    detail: StringEnum(['low', 'high', 'auto', 'original']),
    file_id: Type.Optional(Nullable(Type.String())),
    image_url: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: false, title: 'ResponseInputImage' },
);

export const ResponseInputFile = Type.Object(
  {
    type: Type.Literal('input_file'),
    file_data: Type.Optional(Type.String()),
    file_id: Type.Optional(Nullable(Type.String())),
    filename: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: 'ResponseInputFile' },
);

/** A content part of a stored message, of any role. */
export const ResponseContentPart = TaggedUnion(
  'type',
  [ResponseInputText, ResponseOutputText, ResponseOutputRefusal, ResponseInputImage, ResponseInputFile],
  { title: 'ResponseContentPart' },
);

/** An assistant message of a response's `output`. */
export const ResponseOutputMessage = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    status: ItemStatus,
    content: Type.Array(TaggedUnion('type', [ResponseOutputText, ResponseOutputRefusal])),
  },
  { additionalProperties: false, title: 'ResponseOutputMessage' },
);

/** A message among input or conversation items: any role; the parts the role's messages hold. */
export const ResponseMessageItem = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: StringEnum(['user', 'assistant', 'system', 'developer']),
    status: ItemStatus,
    content: Type.Array(ResponseContentPart),
  },
  { additionalProperties: false, title: 'ResponseMessageItem' },
);

export const ResponseFunctionToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function_call'),
    status: ItemStatus,
    call_id: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
  },
  { additionalProperties: false, title: 'ResponseFunctionToolCall' },
);

export const ResponseFunctionToolCallOutputItem = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function_call_output'),
    status: ItemStatus,
    call_id: Type.String(),
    output: Type.Union([Type.String(), Type.Array(OpenObject({ type: Type.String() }))]),
  },
  { additionalProperties: false, title: 'ResponseFunctionToolCallOutputItem' },
);

/** One passage a file search found (`results` only with `include: ['file_search_call.results']`). */
export const ResponseFileSearchResult = OpenObject(
  {
    file_id: Type.Optional(Type.String()),
    filename: Type.Optional(Type.String()),
    score: Type.Optional(Type.Number()),
    text: Type.Optional(Type.String()),
    attributes: Type.Optional(Nullable(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])))),
  },
  { title: 'ResponseFileSearchResult' },
);

export const ResponseFileSearchToolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('file_search_call'),
    status: StringEnum(['in_progress', 'searching', 'completed', 'incomplete', 'failed']),
    queries: Type.Array(Type.String()),
    results: Type.Optional(Nullable(Type.Array(ResponseFileSearchResult))),
  },
  { additionalProperties: false, title: 'ResponseFileSearchToolCall' },
);

/** A reasoning item a client sent back: shown in listings, never given to a model. */
export const ResponseReasoningItem = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('reasoning'),
    summary: Type.Array(OpenObject({ type: Type.String() })),
    content: Type.Optional(Type.Array(OpenObject({ type: Type.String() }))),
    encrypted_content: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(ItemStatus),
  },
  { additionalProperties: false, title: 'ResponseReasoningItem' },
);

/** A tool of an MCP server, as `mcp_list_tools` lists it. */
export const McpListedTool = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Nullable(Type.String())),
    input_schema: Type.Unknown(),
    annotations: Type.Optional(Nullable(Type.Unknown())),
  },
  { title: 'McpListedTool' },
);

/** The tools an MCP server listed (`error` when listing failed). */
export const McpListTools = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('mcp_list_tools'),
    server_label: Type.String(),
    tools: Type.Array(McpListedTool),
    error: Type.Optional(Nullable(Type.String())),
  },
  { title: 'McpListTools', additionalProperties: false },
);

/** OpenAI's `McpToolCallError`: a protocol error, a tool's own error content, or an HTTP error. */
export const McpToolCallError = OpenObject({ type: Type.String() }, { title: 'McpToolCallError' });

/** One call of an MCP tool the model made. */
export const McpCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('mcp_call'),
    server_label: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
    output: Type.Optional(Nullable(Type.String())),
    error: Type.Optional(Nullable(McpToolCallError)),
    status: Type.Optional(StringEnum(['in_progress', 'completed', 'incomplete', 'calling', 'failed'])),
    approval_request_id: Type.Optional(Nullable(Type.String())),
  },
  { title: 'McpCall', additionalProperties: false },
);

/** A call the client must approve before it runs; it ends the response. */
export const McpApprovalRequest = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('mcp_approval_request'),
    server_label: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
  },
  { title: 'McpApprovalRequest', additionalProperties: false },
);

/** The client's answer to an `mcp_approval_request`. */
export const McpApprovalResponse = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('mcp_approval_response'),
    approval_request_id: Type.String(),
    approve: Type.Boolean(),
    reason: Type.Optional(Nullable(Type.String())),
  },
  { title: 'McpApprovalResponse', additionalProperties: false },
);

/** An item of a response's `output`. */
export const ResponseOutputItem = TaggedUnion(
  'type',
  [ResponseOutputMessage, ResponseFunctionToolCall, ResponseFileSearchToolCall, McpListTools, McpCall, McpApprovalRequest],
  { title: 'ResponseOutputItem' },
);
export type ResponseOutputItem = Static<typeof ResponseOutputItem>;

/** An item of a response's input items or of a conversation (`ResponseItem` / `ConversationItem` in the SDK). */
export const ResponseItem = TaggedUnion(
  'type',
  [
    ResponseMessageItem,
    ResponseFunctionToolCall,
    ResponseFunctionToolCallOutputItem,
    ResponseFileSearchToolCall,
    ResponseReasoningItem,
    McpListTools,
    McpCall,
    McpApprovalRequest,
    McpApprovalResponse,
  ],
  { title: 'ResponseItem' },
);
export type ResponseItem = Static<typeof ResponseItem>;

/**
 * An input item as a request sends it (`ResponseInputItem`): a message (`role` and `content`; `type` may
 * be left out), an item sent back from an earlier output, or an `item_reference`. Each item's own fields
 * are read, and refused naming the field, where core gives it its stored form (`normalizeInput`).
 */
export const ResponseInputItemParam = OpenObject(
  { type: Type.Optional(Type.String()), role: Type.Optional(Type.String()), id: Type.Optional(Nullable(Type.String())) },
  { title: 'ResponseInputItemParam' },
);
export type ResponseInputItemParam = Static<typeof ResponseInputItemParam>;
