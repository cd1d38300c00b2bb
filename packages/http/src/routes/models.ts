// Models: chat completions, models, embeddings, usage and responses over fathom.chat.
import {
  ChatCompletionChunks,
  NotFoundError,
  newId,
  readChatCompletionsBody,
  readResponsesBody,
  runResponse,
  toChatCompletion,
  type ChatStreamPart,
  type Fathom,
  type ResponsesEvent,
  type StoreSearcher,
} from '@fathom/core';
import type { FastifyReply } from 'fastify';
import type { Route } from '../route';
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
export function streamError(error: unknown): SseEvent[] {
  const value = error as { message?: string; type?: string; code?: string; param?: string | null };
  return [
    {
      data: {
        error: {
          message: value?.message ?? 'stream failed',
          type: value?.type ?? 'server_error',
          param: value?.param ?? null,
          code: value?.code ?? 'server_error',
        },
      },
    },
  ];
}

/** Fathom's document search, once the documents capability offers it. */
function searcherOf(fathom: Fathom): StoreSearcher | undefined {
  const documents = fathom.documents as unknown as Partial<StoreSearcher>;
  return typeof documents?.search === 'function' ? (documents as StoreSearcher) : undefined;
}

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

const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

export const modelsRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    schema: {
      body: {
        type: 'object',
        required: ['model', 'messages'],
        properties: {
          model: { type: 'string', minLength: 1 },
          messages: { type: 'array', minItems: 1, items: { type: 'object', required: ['role'] } },
          tools: { type: 'array', items: { type: 'object', required: ['type', 'function'] } },
          stream: { type: 'boolean' },
          temperature: { type: 'number', minimum: 0, maximum: 2 },
          top_p: { type: 'number', minimum: 0, maximum: 1 },
          max_tokens: { type: 'integer', minimum: 1 },
          max_completion_tokens: { type: 'integer', minimum: 1 },
          seed: { type: 'integer' },
          user: { type: 'string' },
          n: { type: 'integer' },
        },
      },
    },
    handler: async ({ fathom, account, body, request, reply }) => {
      const call = readChatCompletionsBody(body);
      const signal = abortOnClose(reply);
      const options = { signal, accountId: account.id };
      if (!call.stream) {
        try {
          return toChatCompletion(await fathom.chat.complete(call.request, options));
        } catch (error) {
          return clientLeft(error, signal, reply);
        }
      }
      const iterator = fathom.chat.stream(call.request, options)[Symbol.asyncIterator]();
      let first: IteratorResult<ChatStreamPart>;
      try {
        // The upstream is contacted here: its errors (429, 5xx, unreachable) still answer with a status.
        first = await iterator.next();
      } catch (error) {
        return clientLeft(error, signal, reply);
      }
      const chunks = new ChatCompletionChunks(newId('chatcmpl-'), call.request.model);
      await sendSse(
        request,
        reply,
        async function* () {
          yield { data: chunks.first() };
          for (let next = first; !next.done; next = await iterator.next()) {
            // Already JSON text (sent as is): the same bytes as the chunk object, built without walking it.
            yield { data: chunks.json(next.value) };
            if (next.value.type === 'finish') break;
          }
          if (call.includeUsage) yield { data: chunks.usageChunk() };
          yield { data: '[DONE]' };
          // The provider still reads the upstream body to its end (keeping the connection alive and
          // recording usage); the client need not wait for that.
          void drain(iterator);
        },
        { onError: streamError },
      );
      return undefined;
    },
  },
  {
    method: 'GET',
    path: '/v1/models',
    handler: async ({ fathom }) => ({ object: 'list', data: await fathom.chat.listModels() }),
  },
  {
    method: 'GET',
    path: '/v1/models/*',
    handler: async ({ fathom, params }) => {
      const id = params['*'] ?? '';
      const model = (await fathom.chat.listModels()).find((entry) => entry.id === id);
      if (!model) throw new NotFoundError('model', id, 'model');
      return model;
    },
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    schema: {
      body: {
        type: 'object',
        required: ['model', 'input'],
        properties: {
          model: { type: 'string', minLength: 1 },
          input: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1 }] },
          encoding_format: { enum: ['float', 'base64'] },
          dimensions: { type: 'integer', minimum: 1 },
          user: { type: 'string' },
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
  },
  {
    method: 'GET',
    path: '/v1/usage',
    schema: { querystring: { type: 'object', properties: { start_date: DATE, end_date: DATE, model: { type: 'string' } } } },
    handler: ({ fathom, account, query }) => ({
      object: 'list',
      data: fathom.chat.usage(account.id, { startDate: query.start_date, endDate: query.end_date, model: query.model }),
    }),
  },
  {
    method: 'POST',
    path: '/v1/responses',
    schema: {
      body: {
        type: 'object',
        required: ['model', 'input'],
        properties: {
          model: { type: 'string', minLength: 1 },
          input: { anyOf: [{ type: 'string' }, { type: 'array' }] },
          instructions: { type: ['string', 'null'] },
          tools: { type: 'array', items: { type: 'object', required: ['type'] } },
          stream: { type: 'boolean' },
          include: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    handler: async ({ fathom, account, body, request, reply }) => {
      const call = readResponsesBody(body);
      const signal = abortOnClose(reply);
      const events = runResponse({ chat: fathom.chat, searcher: searcherOf(fathom) }, call, { accountId: account.id, signal })[
        Symbol.asyncIterator
      ]();
      let first: IteratorResult<ResponsesEvent>;
      try {
        // Nothing is produced before the first model turn answered: its errors still answer with a status.
        first = await events.next();
        if (!call.stream) {
          let last = first;
          for (let next = first; !next.done; next = await events.next()) last = next;
          return last.value!.response;
        }
      } catch (error) {
        return clientLeft(error, signal, reply);
      }
      await sendSse(
        request,
        reply,
        async function* () {
          for (let next = first; !next.done; next = await events.next()) yield { event: next.value.type, data: next.value };
        },
        {
          onError: (error) => {
            const value = error as { message?: string; code?: string; param?: string | null };
            return [
              {
                event: 'error',
                data: {
                  type: 'error',
                  code: value?.code ?? 'server_error',
                  message: value?.message ?? 'stream failed',
                  param: value?.param ?? null,
                },
              },
            ];
          },
        },
      );
      return undefined;
    },
  },
];
