// Models: chat completions, models, embeddings and usage over fathom.chat.
import {
  parseListQuery,
  ChatCompletionChunks,
  CompletionAccumulator,
  NotFoundError,
  newId,
  readChatCompletionsBody,
  toChatCompletion,
  type ChatStreamPart,
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

/** Reads an iterator to its end in the background, ignoring late errors (the answer is already sent). */
function drain(iterator: AsyncIterator<unknown>): void {
  void (async () => {
    while (!(await iterator.next()).done);
  })().catch(() => undefined);
}

/** `metadata[key]=value` pairs of a query string (fastify keeps the bracketed names as they are). */
function metadataFilter(query: Record<string, unknown>): Record<string, string> | undefined {
  const pairs: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(query)) {
    const match = /^metadata\[(.+)\]$/.exec(key);
    if (match && typeof value === 'string') pairs.push([match[1]!, value]);
  }
  if (query.metadata && typeof query.metadata === 'object') {
    for (const [key, value] of Object.entries(query.metadata as Record<string, unknown>)) pairs.push([key, String(value)]);
  }
  return pairs.length ? Object.fromEntries(pairs) : undefined;
}

const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } as const;

export const modelsRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/chat/completions',
    bodyLimit: BODY_LIMITS.chat,
    schema: {
      body: {
        type: 'object',
        required: ['model', 'messages'],
        properties: {
          model: { type: 'string', minLength: 1 },
          messages: { type: 'array', minItems: 1, items: { type: 'object', required: ['role'] } },
          tools: { type: ['array', 'null'], items: { type: 'object', required: ['type', 'function'] } },
          stream: { type: ['boolean', 'null'] },
          temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
          top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
          max_tokens: { type: ['integer', 'null'], minimum: 1 },
          max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
          seed: { type: ['integer', 'null'] },
          user: { type: ['string', 'null'] },
          n: { type: ['integer', 'null'] },
          store: { type: ['boolean', 'null'] },
        },
      },
    },
    handler: async ({ fathom, account, body, request, reply }) => {
      const call = readChatCompletionsBody(body);
      const signal = abortOnClose(reply);
      const options = { signal, accountId: account.id };
      if (!call.stream) {
        let completion: ReturnType<typeof toChatCompletion>;
        try {
          completion = toChatCompletion(await fathom.chat.complete(call.request, options));
        } catch (error) {
          return clientLeft(error, signal, reply);
        }
        if (call.store) await fathom.storedCompletions.save(account.id, completion, call.request.messages, call.metadata);
        return completion;
      }
      const iterator = fathom.chat.stream(call.request, options)[Symbol.asyncIterator]();
      let first: IteratorResult<ChatStreamPart>;
      try {
        // The upstream is contacted here: its errors (429, 5xx, unreachable) still answer with a status.
        first = await iterator.next();
      } catch (error) {
        return clientLeft(error, signal, reply);
      }
      // Chunks name the model that answers (an alias or a bare id resolved to `<vendor>/<model>`).
      const model = fathom.chat.resolveModel(call.request.model);
      const chunks = new ChatCompletionChunks(newId('chatcmpl-'), model);
      const stored = call.store ? new CompletionAccumulator(chunks.id, model, chunks.created) : undefined;
      await sendSse(
        request,
        reply,
        async function* () {
          yield { data: chunks.first() };
          for (let next = first; !next.done; next = await iterator.next()) {
            stored?.add(next.value);
            // Already JSON text (sent as is): the same bytes as the chunk object, built without walking it.
            yield { data: chunks.json(next.value) };
            if (next.value.type === 'finish') break;
          }
          if (stored) await fathom.storedCompletions.save(account.id, stored.completion(), call.request.messages, call.metadata);
          if (call.includeUsage) yield { data: chunks.usageChunk() };
          yield { data: '[DONE]' };
          // The provider still reads the upstream body to its end (keeping the connection alive and
          // recording usage); the client need not wait for that.
          void drain(iterator);
        },
        { errorEvent: chatStreamError },
      );
      return undefined;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions',
    handler: ({ fathom, account, query }) => {
      const { model, metadata, ...rest } = query;
      const list = parseListQuery(rest);
      return fathom.storedCompletions.list(account.id, {
        ...list,
        order: list.order ?? 'asc',
        model: typeof model === 'string' && model ? model : undefined,
        metadata: metadataFilter(query),
      });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions/:id',
    handler: ({ fathom, account, params }) => fathom.storedCompletions.retrieve(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/chat/completions/:id',
    handler: ({ fathom, account, params, body }) => fathom.storedCompletions.update(account.id, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/chat/completions/:id',
    handler: ({ fathom, account, params }) => fathom.storedCompletions.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/chat/completions/:id/messages',
    handler: ({ fathom, account, params, query }) => fathom.storedCompletions.messages(account.id, params.id, parseListQuery(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/models',
    handler: async ({ fathom }) => ({ object: 'list', data: await fathom.chat.listModels() }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/models/*',
    handler: async ({ fathom, params }) => {
      const id = params['*'] ?? '';
      const model = (await fathom.chat.listModels()).find((entry) => entry.id === id);
      if (!model) throw new NotFoundError('model', id, 'model');
      return model;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/embeddings',
    bodyLimit: BODY_LIMITS.embeddings,
    schema: {
      body: {
        type: 'object',
        required: ['model', 'input'],
        properties: {
          model: { type: 'string', minLength: 1 },
          input: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1 }] },
          encoding_format: { enum: ['float', 'base64', null] },
          dimensions: { type: ['integer', 'null'], minimum: 1 },
          user: { type: ['string', 'null'] },
        },
      },
    },
    handler: async ({ fathom, account, body, reply }) => {
      const result = await fathom.chat.embed(body, { accountId: account.id, signal: abortOnClose(reply) });
      const base64 = body.encoding_format === 'base64';
      return {
        object: 'list',
        model: result.model,
        data: result.embeddings.map((vector, index) => ({
          object: 'embedding',
          index,
          embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
        })),
        usage: result.usage,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage',
    schema: { querystring: { type: 'object', properties: { start_date: DATE, end_date: DATE, model: { type: 'string' } } } },
    handler: async ({ fathom, account, query }) => ({
      object: 'list',
      data: await fathom.chat.usage(account.id, { startDate: query.start_date, endDate: query.end_date, model: query.model }),
    }),
  }),
];
