import { parseListQuery } from '@fathom/core';
import type { FastifyReply } from 'fastify';
import { defineRoute, type Route, type RouteContext } from '../route';
import { sendSse } from '../sse';

/** How long the SDK's poll helpers (`createAndPoll`, `createAndRunPoll`) wait between reads, via `openai-poll-after-ms`. */
const POLL_AFTER_MS = '200';

/** An object schema (as a literal type, so the handler's body is typed from it). */
const object = <const Properties extends Record<string, unknown>, const Required extends readonly string[] = []>(
  properties: Properties,
  required?: Required,
) => ({ type: 'object', properties, required: required ?? [] }) as const;
const nullableString = { type: ['string', 'null'] } as const;
const idParams = (...names: string[]) => object(Object.fromEntries(names.map((name) => [name, { type: 'string' }])), names);

/** `include[]=...` as the SDK sends it (brackets), or `include=...`; one value or several. */
function includeOf(query: Record<string, unknown>): string[] {
  const value = query['include[]'] ?? query.include;
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** Answers a run request as a server-sent event stream (OpenAI's assistant events, then `done`). */
function stream(
  context: Pick<RouteContext, 'request' | 'reply'>,
  events: AsyncIterable<{ event: string; data: unknown }>,
): Promise<undefined> {
  return sendSse(context.request, context.reply, () => events).then(() => undefined);
}

function pollAfter(reply: FastifyReply): void {
  reply.header('openai-poll-after-ms', POLL_AFTER_MS);
}

const messageSchema = object({ role: { type: 'string', enum: ['user', 'assistant'] }, content: {}, attachments: {}, metadata: {} }, [
  'role',
  'content',
]);

/** Assistants, threads, messages, runs and run steps (OpenAI's `beta.assistants` / `beta.threads` wire format). */
export const assistantsRoutes: Route[] = [
  // Assistants
  defineRoute({
    method: 'POST',
    path: '/v1/assistants',
    schema: {
      body: object(
        {
          model: { type: 'string' },
          name: nullableString,
          description: nullableString,
          instructions: nullableString,
          tools: { type: 'array' },
        },
        ['model'],
      ),
    },
    handler: ({ fathom, account, body }) => fathom.assistants.createAssistant(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/assistants',
    handler: ({ fathom, account, query }) => fathom.assistants.listAssistants(account.id, parseListQuery(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/assistants/:assistant_id',
    handler: ({ fathom, account, params }) => fathom.assistants.retrieveAssistant(account.id, params.assistant_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/assistants/:assistant_id',
    schema: { params: idParams('assistant_id'), body: object({ model: { type: 'string' }, tools: { type: 'array' } }) },
    handler: ({ fathom, account, params, body }) => fathom.assistants.updateAssistant(account.id, params.assistant_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/assistants/:assistant_id',
    handler: ({ fathom, account, params }) => fathom.assistants.deleteAssistant(account.id, params.assistant_id),
  }),

  // Threads
  defineRoute({
    method: 'POST',
    path: '/v1/threads',
    schema: { body: object({ messages: { type: 'array', items: messageSchema } }) },
    handler: ({ fathom, account, body }) => fathom.assistants.createThread(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id',
    handler: ({ fathom, account, params }) => fathom.assistants.retrieveThread(account.id, params.thread_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id',
    schema: { body: object({}) },
    handler: ({ fathom, account, params, body }) => fathom.assistants.updateThread(account.id, params.thread_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/threads/:thread_id',
    handler: ({ fathom, account, params }) => fathom.assistants.deleteThread(account.id, params.thread_id),
  }),

  // Messages
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/messages',
    schema: { body: messageSchema },
    handler: ({ fathom, account, params, body }) => fathom.assistants.createMessage(account.id, params.thread_id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/messages',
    handler: ({ fathom, account, params, query }) =>
      fathom.assistants.listMessages(account.id, params.thread_id, {
        ...parseListQuery(query),
        ...(typeof query.run_id === 'string' && query.run_id ? { run_id: query.run_id } : {}),
      }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/messages/:message_id',
    handler: ({ fathom, account, params }) => fathom.assistants.retrieveMessage(account.id, params.thread_id, params.message_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/messages/:message_id',
    schema: { body: object({}) },
    handler: ({ fathom, account, params, body }) => fathom.assistants.updateMessage(account.id, params.thread_id, params.message_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/threads/:thread_id/messages/:message_id',
    handler: ({ fathom, account, params }) => fathom.assistants.deleteMessage(account.id, params.thread_id, params.message_id),
  }),

  // Runs
  defineRoute({
    method: 'POST',
    path: '/v1/threads/runs',
    schema: {
      body: object(
        {
          assistant_id: { type: 'string' },
          thread: object({ messages: { type: 'array', items: messageSchema } }),
          stream: { type: ['boolean', 'null'] },
        },
        ['assistant_id'],
      ),
    },
    handler: async (context) => {
      const { fathom, account, body, query } = context;
      const { stream: wantsStream, ...input } = body;
      const options = { include: includeOf(query) };
      if (wantsStream) return stream(context, await fathom.assistants.streamThreadAndRun(account.id, input, options));
      return fathom.assistants.createThreadAndRun(account.id, input, options);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs',
    schema: {
      body: object(
        {
          assistant_id: { type: 'string' },
          additional_messages: { type: ['array', 'null'], items: messageSchema },
          stream: { type: ['boolean', 'null'] },
        },
        ['assistant_id'],
      ),
    },
    handler: async (context) => {
      const { fathom, account, body, params, query } = context;
      const { stream: wantsStream, ...input } = body;
      const options = { include: includeOf(query) };
      if (wantsStream) return stream(context, await fathom.assistants.streamRun(account.id, params.thread_id, input, options));
      return fathom.assistants.createRun(account.id, params.thread_id, input, options);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs',
    handler: ({ fathom, account, params, query }) => fathom.assistants.listRuns(account.id, params.thread_id, parseListQuery(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id',
    handler: ({ fathom, account, params, reply }) => {
      pollAfter(reply);
      return fathom.assistants.retrieveRun(account.id, params.thread_id, params.run_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id',
    schema: { body: object({}) },
    handler: ({ fathom, account, params, body }) => fathom.assistants.updateRun(account.id, params.thread_id, params.run_id, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id/cancel',
    handler: ({ fathom, account, params }) => fathom.assistants.cancelRun(account.id, params.thread_id, params.run_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/threads/:thread_id/runs/:run_id/submit_tool_outputs',
    schema: {
      body: object(
        {
          tool_outputs: {
            type: 'array',
            items: object({ tool_call_id: { type: 'string' }, output: { type: 'string' } }, ['tool_call_id']),
          },
          stream: { type: ['boolean', 'null'] },
        },
        ['tool_outputs'],
      ),
    },
    handler: async (context) => {
      const { fathom, account, body, params } = context;
      const { stream: wantsStream, ...input } = body;
      if (wantsStream)
        return stream(context, await fathom.assistants.streamSubmitToolOutputs(account.id, params.thread_id, params.run_id, input));
      return fathom.assistants.submitToolOutputs(account.id, params.thread_id, params.run_id, input);
    },
  }),

  // Run steps
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id/steps',
    handler: ({ fathom, account, params, query }) =>
      fathom.assistants.listRunSteps(account.id, params.thread_id, params.run_id, parseListQuery(query), includeOf(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/threads/:thread_id/runs/:run_id/steps/:step_id',
    handler: ({ fathom, account, params, query }) =>
      fathom.assistants.retrieveRunStep(account.id, params.thread_id, params.run_id, params.step_id, includeOf(query)),
  }),
];
