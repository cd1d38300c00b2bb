// Assistants, threads, messages, runs and run steps over fathom.assistants and fathom.threads (OpenAI's `beta.assistants` / `beta.threads`).
import {
  Assistant,
  AssistantCreateParams,
  AssistantDeleted,
  AssistantListParams,
  AssistantsPage,
  AssistantStreamEvent,
  AssistantUpdateParams,
  Message,
  MessageCreateParams,
  MessageDeleted,
  MessageListParams,
  MessagesPage,
  MessageUpdateParams,
  Run,
  RunCreateParams,
  RunCreateQuery,
  RunListParams,
  RunsPage,
  RunStep,
  RunStepsPage,
  RunSubmitToolOutputsParams,
  RunUpdateParams,
  StepListParams,
  StepRetrieveParams,
  Thread,
  ThreadCreateAndRunParams,
  ThreadCreateParams,
  ThreadDeleted,
  ThreadUpdateParams,
  Type,
} from '@fathom/core';
import type { FastifyReply } from 'fastify';
import { defineRoute, type Route, type RouteContext } from '../route';
import { sendSse } from '../sse';

/** How long the SDK's poll helpers (`createAndPoll`, `createAndRunPoll`) wait between reads, via `openai-poll-after-ms`. */
const POLL_AFTER_MS = '200';

/** Answers a run request as a server-sent event stream (OpenAI's assistant events, then `done`); an error ends it as `event: error`. */
function stream(context: Pick<RouteContext, 'request' | 'reply'>, events: AsyncIterable<AssistantStreamEvent>): Promise<undefined> {
  return sendSse(context.request, context.reply, () => events, { errorEvent: (error) => ({ event: 'error', data: error }) }).then(
    () => undefined,
  );
}

function pollAfter(reply: FastifyReply): void {
  reply.header('openai-poll-after-ms', POLL_AFTER_MS);
}

/** Assistants, threads, messages, runs and run steps (OpenAI's `beta.assistants` / `beta.threads` wire format). */
export const assistantsRoutes: Route[] = [
  // Assistants
  defineRoute({
    method: 'POST',
    path: '/v1/assistants',
    summary: 'Create an assistant.',
    operationId: 'createAssistant',
    schema: { body: AssistantCreateParams, response: Assistant },
    handler: ({ fathom, account, body }) => fathom.assistants.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/assistants',
    summary: 'List assistants.',
    operationId: 'listAssistants',
    schema: { querystring: AssistantListParams, response: AssistantsPage },
    handler: ({ fathom, account, query }) => fathom.assistants.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/assistants/:assistant_id',
    summary: 'Retrieve an assistant.',
    operationId: 'getAssistant',
    schema: { response: Assistant },
    handler: ({ fathom, account, params }) => fathom.assistants.retrieve(account.id, params.assistant_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/assistants/:assistant_id',
    summary: 'Modify an assistant.',
    operationId: 'modifyAssistant',
    schema: { body: AssistantUpdateParams, response: Assistant },
    handler: ({ fathom, account, params, body }) => fathom.assistants.update(account.id, params.assistant_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/assistants/:assistant_id',
    summary: 'Delete an assistant.',
    operationId: 'deleteAssistant',
    schema: { response: AssistantDeleted },
    handler: ({ fathom, account, params }) => fathom.assistants.delete(account.id, params.assistant_id),
  }),

  // Threads
  defineRoute({
    method: 'POST',
    path: '/v1/threads',
    summary: 'Create a thread.',
    operationId: 'createThread',
    schema: { body: ThreadCreateParams, response: Thread },
    handler: ({ fathom, account, body }) => fathom.threads.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id',
    summary: 'Retrieve a thread.',
    operationId: 'getThread',
    schema: { response: Thread },
    handler: ({ fathom, account, params }) => fathom.threads.retrieve(account.id, params.thread_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id',
    summary: 'Modify a thread.',
    operationId: 'modifyThread',
    schema: { body: ThreadUpdateParams, response: Thread },
    handler: ({ fathom, account, params, body }) => fathom.threads.update(account.id, params.thread_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/threads/:thread_id',
    summary: 'Delete a thread with its messages and runs.',
    operationId: 'deleteThread',
    schema: { response: ThreadDeleted },
    handler: ({ fathom, account, params }) => fathom.threads.delete(account.id, params.thread_id),
  }),

  // Messages
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/messages',
    summary: 'Add a message to a thread.',
    operationId: 'createMessage',
    schema: { body: MessageCreateParams, response: Message },
    handler: ({ fathom, account, params, body }) => fathom.threads.messages.create(account.id, params.thread_id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/messages',
    summary: 'List the messages of a thread.',
    operationId: 'listMessages',
    schema: { querystring: MessageListParams, response: MessagesPage },
    handler: ({ fathom, account, params, query }) => fathom.threads.messages.list(account.id, params.thread_id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/messages/:message_id',
    summary: 'Retrieve a message.',
    operationId: 'getMessage',
    schema: { response: Message },
    handler: ({ fathom, account, params }) => fathom.threads.messages.retrieve(account.id, params.thread_id, params.message_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/messages/:message_id',
    summary: 'Modify a message.',
    operationId: 'modifyMessage',
    schema: { body: MessageUpdateParams, response: Message },
    handler: ({ fathom, account, params, body }) => fathom.threads.messages.update(account.id, params.thread_id, params.message_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/threads/:thread_id/messages/:message_id',
    summary: 'Delete a message.',
    operationId: 'deleteMessage',
    schema: { response: MessageDeleted },
    handler: ({ fathom, account, params }) => fathom.threads.messages.delete(account.id, params.thread_id, params.message_id),
  }),

  // Runs
  defineRoute({
    method: 'POST',
    path: '/v1/threads/runs',
    summary: 'Create a thread and run it (server-sent events with `stream: true`).',
    operationId: 'createThreadAndRun',
    schema: { body: ThreadCreateAndRunParams, querystring: RunCreateQuery, response: Run, stream: AssistantStreamEvent },
    handler: async (context) => {
      const { fathom, account, body, query } = context;
      if (body.stream) return stream(context, await fathom.threads.createAndRunStream(account.id, body, query));
      return fathom.threads.createAndRun(account.id, body, query);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs',
    summary: 'Create a run (server-sent events with `stream: true`).',
    operationId: 'createRun',
    schema: { body: RunCreateParams, querystring: RunCreateQuery, response: Run, stream: AssistantStreamEvent },
    handler: async (context) => {
      const { fathom, account, body, params, query } = context;
      if (body.stream) return stream(context, await fathom.threads.runs.stream(account.id, params.thread_id, body, query));
      return fathom.threads.runs.create(account.id, params.thread_id, body, query);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs',
    summary: 'List the runs of a thread.',
    operationId: 'listRuns',
    schema: { querystring: RunListParams, response: RunsPage },
    handler: ({ fathom, account, params, query }) => fathom.threads.runs.list(account.id, params.thread_id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id',
    summary: 'Retrieve a run.',
    operationId: 'getRun',
    schema: { response: Run },
    handler: ({ fathom, account, params, reply }) => {
      pollAfter(reply);
      return fathom.threads.runs.retrieve(account.id, params.thread_id, params.run_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id',
    summary: 'Modify a run.',
    operationId: 'modifyRun',
    schema: { body: RunUpdateParams, response: Run },
    handler: ({ fathom, account, params, body }) => fathom.threads.runs.update(account.id, params.thread_id, params.run_id, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id/cancel',
    summary: 'Cancel a run.',
    operationId: 'cancelRun',
    schema: { body: Type.Object({}), response: Run },
    handler: ({ fathom, account, params }) => fathom.threads.runs.cancel(account.id, params.thread_id, params.run_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id/submit_tool_outputs',
    summary: 'Submit the outputs of the function calls a run waits for (server-sent events with `stream: true`).',
    operationId: 'submitToolOuputsToRun',
    schema: { body: RunSubmitToolOutputsParams, response: Run, stream: AssistantStreamEvent },
    handler: async (context) => {
      const { fathom, account, body, params } = context;
      const { thread_id: threadId, run_id: runId } = params;
      if (body.stream) return stream(context, await fathom.threads.runs.submitToolOutputsStream(account.id, threadId, runId, body));
      return fathom.threads.runs.submitToolOutputs(account.id, threadId, runId, body);
    },
  }),

  // Run steps
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id/steps',
    summary: 'List the steps of a run.',
    operationId: 'listRunSteps',
    schema: { querystring: StepListParams, response: RunStepsPage },
    handler: ({ fathom, account, params, query }) => fathom.threads.runs.steps.list(account.id, params.thread_id, params.run_id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id/steps/:step_id',
    summary: 'Retrieve a run step.',
    operationId: 'getRunStep',
    schema: { querystring: StepRetrieveParams, response: RunStep },
    handler: ({ fathom, account, params, query }) =>
      fathom.threads.runs.steps.retrieve(account.id, params.thread_id, params.run_id, params.step_id, query),
  }),
];
