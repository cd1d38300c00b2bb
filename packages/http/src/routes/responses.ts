// Responses and Conversations: OpenAI's stateful API over fathom.responses and fathom.conversations.
import {
  Conversation,
  ConversationCreateParams,
  ConversationDeleted,
  ConversationItem,
  ConversationItemCreateParams,
  ConversationItemIncludeParams,
  ConversationItemList,
  ConversationItemListParams,
  ConversationUpdateParams,
  InputItemListParams,
  Response,
  ResponseCreateParams,
  ResponseDeleted,
  ResponseItemList,
  ResponseRetrieveParams,
  ResponseStreamEvent,
  Type,
} from '@fathom/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BODY_LIMITS } from '../body-limits';
import { defineRoute, type Route } from '../route';
import { sendSse } from '../sse';
import { abortOnClose } from './models';

async function streamEvents(request: FastifyRequest, reply: FastifyReply, events: AsyncIterable<ResponseStreamEvent>): Promise<undefined> {
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
    summary: 'Create a model response (stored unless store: false; background: true runs it on the queue).',
    operationId: 'createResponse',
    bodyLimit: BODY_LIMITS.chat,
    schema: { body: ResponseCreateParams, response: Response, stream: ResponseStreamEvent },
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
    summary: 'Retrieve a response; stream=true follows a background response, resuming after starting_after.',
    operationId: 'getResponse',
    schema: { querystring: ResponseRetrieveParams, response: Response, stream: ResponseStreamEvent },
    handler: async ({ fathom, account, params, query, request, reply }) => {
      if (query.stream) {
        const events = await fathom.responses.stream(account.id, params.id, query.starting_after ?? -1, abortOnClose(reply));
        return streamEvents(request, reply, events);
      }
      return fathom.responses.retrieve(account.id, params.id, query);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/responses/:id',
    summary: 'Delete a stored response (a running background one stops).',
    operationId: 'deleteResponse',
    schema: { response: ResponseDeleted },
    handler: ({ fathom, account, params }) => fathom.responses.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/responses/:id/cancel',
    summary: 'Cancel a queued or running background response.',
    operationId: 'cancelResponse',
    schema: { body: Type.Object({}), response: Response },
    handler: ({ fathom, account, params }) => fathom.responses.cancel(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/responses/:id/input_items',
    summary: "List a response's input items.",
    operationId: 'listInputItems',
    schema: { querystring: InputItemListParams, response: ResponseItemList },
    handler: ({ fathom, account, params, query }) => fathom.responses.inputItems.list(account.id, params.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations',
    summary: 'Create a conversation, with up to 20 first items.',
    operationId: 'createConversation',
    bodyLimit: BODY_LIMITS.chat,
    schema: { body: ConversationCreateParams, response: Conversation },
    handler: ({ fathom, account, body }) => fathom.conversations.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id',
    summary: 'Retrieve a conversation.',
    operationId: 'getConversation',
    schema: { response: Conversation },
    handler: ({ fathom, account, params }) => fathom.conversations.retrieve(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:id',
    summary: "Replace a conversation's metadata.",
    operationId: 'updateConversation',
    schema: { body: ConversationUpdateParams, response: Conversation },
    handler: ({ fathom, account, params, body }) => fathom.conversations.update(account.id, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/conversations/:id',
    summary: 'Delete a conversation (the responses that used it stay).',
    operationId: 'deleteConversation',
    schema: { response: ConversationDeleted },
    handler: ({ fathom, account, params }) => fathom.conversations.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id/items',
    summary: "List a conversation's items.",
    operationId: 'listConversationItems',
    schema: { querystring: ConversationItemListParams, response: ConversationItemList },
    handler: ({ fathom, account, params, query }) => fathom.conversations.items.list(account.id, params.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/conversations/:id/items',
    summary: 'Add up to 20 items to a conversation.',
    operationId: 'createConversationItems',
    bodyLimit: BODY_LIMITS.chat,
    schema: { body: ConversationItemCreateParams, querystring: ConversationItemIncludeParams, response: ConversationItemList },
    handler: ({ fathom, account, params, body, query }) => fathom.conversations.items.create(account.id, params.id, body, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/conversations/:id/items/:itemId',
    summary: 'Retrieve one item of a conversation.',
    operationId: 'getConversationItem',
    schema: { querystring: ConversationItemIncludeParams, response: ConversationItem },
    handler: ({ fathom, account, params, query }) => fathom.conversations.items.retrieve(account.id, params.id, params.itemId, query),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/conversations/:id/items/:itemId',
    summary: 'Delete one item of a conversation; answers the conversation.',
    operationId: 'deleteConversationItem',
    schema: { response: Conversation },
    handler: ({ fathom, account, params }) => fathom.conversations.items.delete(account.id, params.id, params.itemId),
  }),
];
