import { type Static, Type } from '@sinclair/typebox';
import { Deleted, Metadata, Nullable, OptionalNullable } from '../../wire';
import { ToolResources, ToolResourcesParam } from './assistants';
import { MessageCreateParams } from './messages';
import { RunSettingsParams } from './runs';

/* Threads as the `openai` SDK v7 types them (`beta.threads`), and `createAndRun`. */

export const ThreadCreateParams = Type.Object(
  {
    messages: Type.Optional(Type.Array(MessageCreateParams)),
    metadata: OptionalNullable(Metadata),
    tool_resources: OptionalNullable(ToolResourcesParam),
  },
  { title: 'ThreadCreateParams' },
);
export type ThreadCreateParams = Static<typeof ThreadCreateParams>;

export const ThreadUpdateParams = Type.Object(
  { metadata: OptionalNullable(Metadata), tool_resources: OptionalNullable(ToolResourcesParam) },
  { title: 'ThreadUpdateParams' },
);
export type ThreadUpdateParams = Static<typeof ThreadUpdateParams>;

/**
 * `POST /v1/threads/runs`: a thread created with its messages and a run on it at once. `tool_resources`
 * here replaces the assistant's stores for this run (the thread's own stay searched too).
 */
export const ThreadCreateAndRunParams = Type.Object(
  {
    assistant_id: Type.String({ minLength: 1 }),
    thread: Type.Optional(ThreadCreateParams),
    tool_resources: OptionalNullable(ToolResourcesParam),
    ...RunSettingsParams,
  },
  { title: 'ThreadCreateAndRunParams' },
);
export type ThreadCreateAndRunParams = Static<typeof ThreadCreateAndRunParams>;

export const Thread = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('thread'),
    created_at: Type.Integer(),
    metadata: Nullable(Metadata),
    tool_resources: Nullable(ToolResources),
  },
  { title: 'Thread', additionalProperties: false },
);
export type Thread = Static<typeof Thread>;

export const ThreadDeleted = Deleted('thread.deleted');
export type ThreadDeleted = Static<typeof ThreadDeleted>;
