import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { Deleted, ListPage, ListQuery, Metadata, Nullable, OptionalNullable, StringEnum, TaggedUnion } from '../../wire';

/*
 * Thread messages as the `openai` SDK v7 types them (`beta.threads.messages`). Fathom's messages hold
 * text: a client sends a string or `{type: 'text', text}` parts (image parts are refused), and the
 * assistant's answers carry `file_citation` annotations.
 */

const closed = { additionalProperties: false } as const;

const ROLES = ['user', 'assistant'] as const;

/** `content` of a message a client writes: a string, or text parts (their texts together at most 256,000 characters, checked in core). */
export const MessageContentParam = Type.Union(
  [
    Type.String({ maxLength: FIELD_LIMITS.content }),
    Type.Array(TaggedUnion('type', [Type.Object({ type: Type.Literal('text'), text: Type.String() })]), { minItems: 1 }),
  ],
  { title: 'MessageContentParam' },
);
export type MessageContentParam = Static<typeof MessageContentParam>;

/** A file attached to a message: with the `file_search` tool it goes into the thread's vector store. */
export const MessageAttachmentParam = Type.Object(
  {
    file_id: Type.String({ minLength: 1 }),
    tools: Type.Optional(Type.Array(TaggedUnion('type', [Type.Object({ type: Type.Literal('file_search') })]))),
  },
  { title: 'MessageAttachmentParam' },
);

/** A message a client writes: `POST /v1/threads/{id}/messages`, a new thread's `messages[]`, a run's `additional_messages[]`. */
export const MessageCreateParams = Type.Object(
  {
    role: StringEnum(ROLES),
    content: MessageContentParam,
    attachments: OptionalNullable(Type.Array(MessageAttachmentParam)),
    metadata: OptionalNullable(Metadata),
  },
  { title: 'MessageCreateParams' },
);
export type MessageCreateParams = Static<typeof MessageCreateParams>;

export const MessageUpdateParams = Type.Object({ metadata: OptionalNullable(Metadata) }, { title: 'MessageUpdateParams' });
export type MessageUpdateParams = Static<typeof MessageUpdateParams>;

export const MessageListParams = ListQuery({ run_id: Type.Optional(Type.String({ description: 'Only the messages this run wrote.' })) });
export type MessageListParams = Static<typeof MessageListParams>;

/** A passage the answer cites: the marker's place in the text and the cited file. */
export const FileCitationAnnotation = Type.Object(
  {
    type: Type.Literal('file_citation'),
    text: Type.String(),
    start_index: Type.Integer(),
    end_index: Type.Integer(),
    file_citation: Type.Object({ file_id: Type.String() }, closed),
  },
  { title: 'FileCitationAnnotation', ...closed },
);
export type FileCitationAnnotation = Static<typeof FileCitationAnnotation>;

export const TextContentBlock = Type.Object(
  {
    type: Type.Literal('text'),
    text: Type.Object({ value: Type.String(), annotations: Type.Array(FileCitationAnnotation) }, closed),
  },
  { title: 'TextContentBlock', ...closed },
);
export type TextContentBlock = Static<typeof TextContentBlock>;

export const MessageAttachment = Type.Object(
  {
    file_id: Type.Optional(Type.String()),
    tools: Type.Optional(Type.Array(Type.Object({ type: Type.Literal('file_search') }, closed))),
  },
  { title: 'MessageAttachment', ...closed },
);
export type MessageAttachment = Static<typeof MessageAttachment>;

export const Message = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread.message'),
    created_at: Type.Integer(),
    thread_id: Type.String(),
    status: StringEnum(['in_progress', 'incomplete', 'completed']),
    incomplete_details: Nullable(
      Type.Object({ reason: StringEnum(['content_filter', 'max_tokens', 'run_cancelled', 'run_expired', 'run_failed']) }, closed),
    ),
    completed_at: Nullable(Type.Integer()),
    incomplete_at: Nullable(Type.Integer()),
    role: StringEnum(ROLES),
    content: Type.Array(TextContentBlock),
    assistant_id: Nullable(Type.String()),
    run_id: Nullable(Type.String()),
    attachments: Nullable(Type.Array(MessageAttachment)),
    metadata: Nullable(Metadata),
  },
  { title: 'Message', ...closed },
);
export type Message = Static<typeof Message>;

export const MessageDeleted = Deleted('thread.message.deleted');
export type MessageDeleted = Static<typeof MessageDeleted>;

export const MessagesPage = ListPage(Message);
export type MessagesPage = Static<typeof MessagesPage>;

/** `thread.message.delta`: text as it arrives. */
export const MessageDeltaEvent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread.message.delta'),
    delta: Type.Object(
      {
        content: Type.Optional(
          Type.Array(
            Type.Object(
              {
                index: Type.Integer(),
                type: Type.Literal('text'),
                text: Type.Optional(
                  Type.Object({ value: Type.Optional(Type.String()), annotations: Type.Optional(Type.Array(Type.Unknown())) }, closed),
                ),
              },
              closed,
            ),
          ),
        ),
        role: Type.Optional(StringEnum(ROLES)),
      },
      closed,
    ),
  },
  { title: 'MessageDeltaEvent', ...closed },
);
export type MessageDeltaEvent = Static<typeof MessageDeltaEvent>;
