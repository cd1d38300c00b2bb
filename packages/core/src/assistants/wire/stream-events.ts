import { type Static, Type } from '@sinclair/typebox';
import { ErrorEnvelope, StringEnum, TaggedUnion } from '../../wire';
import { Message, MessageDeltaEvent } from './messages';
import { RunStep, RunStepDeltaEvent } from './run-steps';
import { Run } from './runs';
import { Thread } from './threads';

/**
 * One server-sent event of a streamed run (`stream: true` on the run-creating routes and on
 * submit_tool_outputs): `event: <event>` and `data: <data>`, as the `openai` SDK v7 types
 * `AssistantStreamEvent`, then `event: done` / `data: [DONE]`.
 */
export const AssistantStreamEvent = TaggedUnion(
  'event',
  [
    Type.Object({ event: Type.Literal('thread.created'), data: Thread }),
    Type.Object({
      event: StringEnum([
        'thread.run.created',
        'thread.run.queued',
        'thread.run.in_progress',
        'thread.run.requires_action',
        'thread.run.completed',
        'thread.run.incomplete',
        'thread.run.failed',
        'thread.run.cancelling',
        'thread.run.cancelled',
        'thread.run.expired',
      ]),
      data: Run,
    }),
    Type.Object({
      event: StringEnum([
        'thread.run.step.created',
        'thread.run.step.in_progress',
        'thread.run.step.completed',
        'thread.run.step.failed',
        'thread.run.step.cancelled',
        'thread.run.step.expired',
      ]),
      data: RunStep,
    }),
    Type.Object({ event: Type.Literal('thread.run.step.delta'), data: RunStepDeltaEvent }),
    Type.Object({
      event: StringEnum(['thread.message.created', 'thread.message.in_progress', 'thread.message.completed', 'thread.message.incomplete']),
      data: Message,
    }),
    Type.Object({ event: Type.Literal('thread.message.delta'), data: MessageDeltaEvent }),
    /** The stream stops on an error: the SDK raises it. */
    Type.Object({ event: Type.Literal('error'), data: ErrorEnvelope.properties.error }),
    Type.Object({ event: Type.Literal('done'), data: Type.Literal('[DONE]') }),
  ],
  { title: 'AssistantStreamEvent' },
);
export type AssistantStreamEvent = Static<typeof AssistantStreamEvent>;
