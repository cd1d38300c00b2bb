// Models: chat completions (and the stored ones), embeddings, models and usage over fathom.chat,
// fathom.embeddings, fathom.models and fathom.usage.
import {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionDeleted,
  ChatCompletionListParams,
  ChatCompletionMessageListParams,
  ChatCompletionsPage,
  ChatCompletionStoreMessagesPage,
  ChatCompletionStream,
  ChatCompletionUpdateParams,
  CreateEmbeddingResponse,
  EmbeddingCreateParams,
  Model,
  ModelsPage,
  UsageListParams,
  LatencyListParams,
  LatencyPage,
  Type,
  UsageGroupsPage,
  UsagePage,
  UsageErrorListParams,
  UsageErrorsPage,
} from '@fathom/core';
import type { FastifyReply } from 'fastify';
import { BODY_LIMITS } from '../body-limits';
import type { OpenAiErrorObject } from '../errors';
import { defineRoute, type Route } from '../route';
import { sendSse, type SseEvent } from '../sse';

/** An AbortSignal that fires when the client goes away before the answer is complete. */
export function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** An error that happens after the stream began, as the chat-completions wire sends it (the SDK throws APIError). */
export const chatStreamError = (error: OpenAiErrorObject): SseEvent => ({ data: { error } });

/** After the client left, the aborted upstream call's error has nobody to go to: close quietly. Else rethrow. */
function clientLeft(error: unknown, signal: AbortSignal, reply: FastifyReply): undefined {
  if (!signal.aborted) throw error;
  reply.hijack();
  reply.raw.destroy();
  return undefined;
}

export const modelsRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/chat/completions',
    summary: 'Create a chat completion (a stream of chunks with `stream: true`).',
    operationId: 'createChatCompletion',
    bodyLimit: BODY_LIMITS.chat,
    schema: { body: ChatCompletionCreateParams, response: ChatCompletion, stream: ChatCompletionChunk },
    handler: async ({ fathom, account, body, request, reply }) => {
      const signal = abortOnClose(reply);
      let answer: ChatCompletion | ChatCompletionStream;
      try {
        // The upstream is contacted here, streaming too: its errors (429, 5xx, unreachable) still answer with a status.
        answer = await fathom.chat.completions.create(account.id, body, { signal });
      } catch (error) {
        return clientLeft(error, signal, reply);
      }
      if (!(answer instanceof ChatCompletionStream)) return answer;
      // Each chunk is already JSON text, sent as it is: the same bytes as the chunk object, built without walking it.
      const chunks = answer.jsonChunks();
      await sendSse(request, reply, () => chunks, { errorEvent: chatStreamError, end: '[DONE]' });
      return undefined;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions',
    summary: 'List stored chat completions.',
    operationId: 'listChatCompletions',
    schema: { querystring: ChatCompletionListParams, response: ChatCompletionsPage },
    handler: ({ fathom, account, query }) => fathom.chat.completions.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions/:completion_id',
    summary: 'Retrieve a stored chat completion.',
    operationId: 'getChatCompletion',
    schema: { response: ChatCompletion },
    handler: ({ fathom, account, params }) => fathom.chat.completions.retrieve(account.id, params.completion_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/chat/completions/:completion_id',
    summary: 'Replace the metadata of a stored chat completion.',
    operationId: 'updateChatCompletion',
    schema: { body: ChatCompletionUpdateParams, response: ChatCompletion },
    handler: ({ fathom, account, params, body }) => fathom.chat.completions.update(account.id, params.completion_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/chat/completions/:completion_id',
    summary: 'Delete a stored chat completion.',
    operationId: 'deleteChatCompletion',
    schema: { response: ChatCompletionDeleted },
    handler: ({ fathom, account, params }) => fathom.chat.completions.delete(account.id, params.completion_id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions/:completion_id/messages',
    summary: 'List the request messages of a stored chat completion.',
    operationId: 'getChatCompletionMessages',
    schema: { querystring: ChatCompletionMessageListParams, response: ChatCompletionStoreMessagesPage },
    handler: ({ fathom, account, params, query }) => fathom.chat.completions.messages.list(account.id, params.completion_id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/models',
    summary: 'List the models of the configured vendors, and the aliases.',
    operationId: 'listModels',
    schema: { response: ModelsPage },
    handler: ({ fathom }) => fathom.models.list(),
  }),
  defineRoute({
    method: 'GET',
    // Model ids contain '/' (`<vendor>/<model>`): the rest of the path is the id.
    path: '/v1/models/*',
    summary: 'Retrieve a model.',
    operationId: 'retrieveModel',
    schema: { response: Model },
    handler: ({ fathom, params }) => fathom.models.retrieve(params['*']),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/embeddings',
    summary: "Create embeddings with a vendor's model or Fathom's own embedder.",
    operationId: 'createEmbedding',
    bodyLimit: BODY_LIMITS.embeddings,
    schema: { body: EmbeddingCreateParams, response: CreateEmbeddingResponse },
    handler: ({ fathom, account, body, reply }) => fathom.embeddings.create(account.id, body, { signal: abortOnClose(reply) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage',
    summary: "The account's token usage per UTC day and model.",
    operationId: 'listUsage',
    extension: true,
    schema: { querystring: UsageListParams, response: Type.Union([UsagePage, UsageGroupsPage]) },
    handler: ({ fathom, account, query }) => fathom.usage.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/latency',
    summary: "How long the account's answered chat model calls took: p50 and p95 per UTC day and model.",
    operationId: 'listUsageLatency',
    extension: true,
    schema: { querystring: LatencyListParams, response: LatencyPage },
    handler: ({ fathom, account, query }) => fathom.usage.latency(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/errors',
    summary: "The account's requests answered with an error: how many per UTC day, status and error code.",
    operationId: 'listUsageErrors',
    extension: true,
    schema: { querystring: UsageErrorListParams, response: UsageErrorsPage },
    handler: ({ fathom, account, query }) => fathom.usage.errors(account.id, query),
  }),
];
