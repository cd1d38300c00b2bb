// Responses and Conversations: OpenAI's stateful API over fathom.responses and fathom.conversations.
import { parseListQuery, RESPONSE_INCLUDABLES, InvalidRequestError, type ResponsesEvent } from '@fathom/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../body-limits';
import { defineRoute, type Route } from '../route';
import { sendSse } from '../sse';
import { abortOnClose } from './models';

/** `include` of a query string, sent as `include`, `include[]`, repeated or comma-free single values. */
function includeOf(query: Record<string, unknown>): string[] {
  const raw = query.include ?? query['include[]'];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  values.forEach((value, index) => {
    if (!RESPONSE_INCLUDABLES.includes(String(value))) {
      throw new InvalidRequestError(`Invalid value for 'include[${index}]': '${String(value)}'.`, `include[${index}]`);
    }
  });
  return values.map(String);
}

function listQuery(query: Record<string, unknown>) {
  const { include: _include, 'include[]': _brackets, ...rest } = query;
  return parseListQuery(rest);
}

async function streamEvents(request: FastifyRequest, reply: FastifyReply, events: AsyncIterable<ResponsesEvent>): Promise<undefined> {
  await sendSse(
    request,
    reply,
    async function* () {
      for await (const event of events) yield { event: event.type, data: event };
    },
    { errorEvent: (error) => ({ event: 'error', data: { type: 'error', code: error.code, message: error.message, param: error.param } }) },
  );
  return undefined;
}

export const responsesRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/responses',
    bodyLimit: BODY_LIMITS.chat,
    handler: async ({ fathom, account, body, request, reply }) => {
      const signal = abortOnClose(reply);
      const result = await fathom.responses.create(account.id, body, { signal });
      if (result.events) return streamEvents(request, reply, result.events);
      return result.response;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/responses/:id',
    handler: async ({ fathom, account, params, query, request, reply }) => {
      const include = includeOf(query);
      if (query.stream === 'true') {
        const after = query.starting_after === undefined ? -1 : Number(query.starting_after);
        if (!Number.isInteger(after) || after < -1)
          throw new InvalidRequestError(`Invalid 'starting_after': expected an integer >= 0.`, 'starting_after');
        const events = await fathom.responses.stream(account.id, params.id, after, abortOnClose(reply));
        return streamEvents(request, reply, events);
      }
      return fathom.responses.retrieve(account.id, params.id, include);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/responses/:id',
    handler: ({ fathom, account, params }) => fathom.responses.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/responses/:id/cancel',
    handler: ({ fathom, account, params }) => fathom.responses.cancel(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/responses/:id/input_items',
    handler: ({ fathom, account, params, query }) => fathom.responses.inputItems(account.id, params.id, listQuery(query), includeOf(query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations',
    bodyLimit: BODY_LIMITS.chat,
    handler: ({ fathom, account, body }) => fathom.conversations.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id',
    handler: ({ fathom, account, params }) => fathom.conversations.retrieve(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:id',
    handler: ({ fathom, account, params, body }) => fathom.conversations.update(account.id, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/conversations/:id',
    handler: ({ fathom, account, params }) => fathom.conversations.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id/items',
    handler: ({ fathom, account, params, query }) =>
      fathom.conversations.listItems(account.id, params.id, listQuery(query), includeOf(query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:id/items',
    bodyLimit: BODY_LIMITS.chat,
    handler: ({ fathom, account, params, body, query }) => fathom.conversations.addItems(account.id, params.id, body, includeOf(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id/items/:itemId',
    handler: ({ fathom, account, params, query }) =>
      fathom.conversations.retrieveItem(account.id, params.id, params.itemId, includeOf(query)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/conversations/:id/items/:itemId',
    handler: ({ fathom, account, params }) => fathom.conversations.deleteItem(account.id, params.id, params.itemId),
  }),
];
