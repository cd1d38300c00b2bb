// Files, vector stores, store files and file batches over fathom.documents (parse, call core, serialize).
import {
  parseListQuery,
  VectorStore,
  VectorStoreCreateParams,
  VectorStoreDeleted,
  VectorStoreListParams,
  VectorStorePage,
  VectorStoreUpdateParams,
} from '@fathom/core';
import type { FastifyReply } from 'fastify';
import { contentDisposition } from '../content-disposition';
import { defineRoute, type Route } from '../route';
import { readUploadForm } from '../upload-form';

/** How long the SDK's poll helpers (`uploadAndPoll`, `createAndPoll`) wait between reads, via `openai-poll-after-ms`. */
const POLL_AFTER_MS = '200';
const pollable = (reply: FastifyReply) => reply.header('openai-poll-after-ms', POLL_AFTER_MS);

const OBJECT_BODY = { body: { type: 'object' } } as const;
const LIST_QUERY = <const Extra extends Record<string, unknown>>(extra: Extra) =>
  ({
    querystring: {
      type: 'object',
      properties: { limit: { type: 'string' }, order: { type: 'string' }, after: { type: 'string' }, before: { type: 'string' }, ...extra },
    },
  }) as const;

export const documentsRoutes: Route[] = [
  // ---- files ----
  defineRoute({
    method: 'POST',
    path: '/v1/files',
    multipart: true,
    handler: async ({ fathom, account, request }) => {
      const { staged, filename, purpose, expiresAfter } = await readUploadForm(fathom, request);
      // The staged bytes are committed or discarded by core either way.
      return fathom.documents.commitUpload(account.id, staged, { filename, purpose, expires_after: expiresAfter });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files',
    schema: LIST_QUERY({ purpose: { type: 'string' } }),
    handler: ({ fathom, account, query }) =>
      fathom.documents.listFiles(account.id, { ...parseListQuery(query, 10_000), purpose: query.purpose || undefined }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files/:id',
    handler: ({ fathom, account, params }) => fathom.documents.getFile(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files/:id/content',
    handler: async ({ fathom, account, params, reply }) => {
      const { file, stream } = await fathom.documents.openFileContent(account.id, params.id);
      // Returning the reply tells fastify the stream answers the request.
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(file.bytes))
        .header('content-disposition', contentDisposition(file.filename))
        .send(stream);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/files/:id',
    handler: ({ fathom, account, params }) => fathom.documents.deleteFile(account.id, params.id),
  }),

  // ---- vector stores ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores',
    summary: 'Create a vector store.',
    operationId: 'createVectorStore',
    schema: { body: VectorStoreCreateParams, response: VectorStore },
    handler: ({ fathom, account, body }) => fathom.documents.createStore(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores',
    summary: 'List vector stores.',
    operationId: 'listVectorStores',
    schema: { querystring: VectorStoreListParams, response: VectorStorePage },
    handler: ({ fathom, account, query }) => fathom.documents.listStores(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id',
    summary: 'Retrieve a vector store.',
    operationId: 'retrieveVectorStore',
    schema: { response: VectorStore },
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getStore(account.id, params.id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id',
    summary: 'Modify a vector store.',
    operationId: 'updateVectorStore',
    schema: { body: VectorStoreUpdateParams, response: VectorStore },
    handler: ({ fathom, account, params, body }) => fathom.documents.updateStore(account.id, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/vector_stores/:id',
    summary: 'Delete a vector store.',
    operationId: 'deleteVectorStore',
    schema: { response: VectorStoreDeleted },
    handler: ({ fathom, account, params }) => fathom.documents.deleteStore(account.id, params.id),
  }),

  // ---- store files ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/files',
    schema: { body: { type: 'object', required: ['file_id'], properties: { file_id: { type: 'string', minLength: 1 } } } },
    handler: ({ fathom, account, params, body }) => fathom.documents.addStoreFile(account.id, params.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files',
    schema: LIST_QUERY({ filter: { type: 'string' } }),
    handler: ({ fathom, account, params, query }) =>
      fathom.documents.listStoreFiles(account.id, params.id, { ...parseListQuery(query), filter: query.filter || undefined }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id',
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getStoreFile(account.id, params.id, params.file_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/files/:file_id',
    schema: { body: { type: 'object', required: ['attributes'] } },
    handler: ({ fathom, account, params, body }) => fathom.documents.updateStoreFile(account.id, params.id, params.file_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/vector_stores/:id/files/:file_id',
    handler: ({ fathom, account, params }) => fathom.documents.deleteStoreFile(account.id, params.id, params.file_id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id/content',
    handler: ({ fathom, account, params }) => fathom.documents.storeFileContent(account.id, params.id, params.file_id),
  }),

  // ---- file batches ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches',
    schema: OBJECT_BODY,
    handler: ({ fathom, account, params, body }) => fathom.documents.createBatch(account.id, params.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id',
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getBatch(account.id, params.id, params.batch_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/cancel',
    handler: ({ fathom, account, params }) => fathom.documents.cancelBatch(account.id, params.id, params.batch_id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/files',
    schema: LIST_QUERY({ filter: { type: 'string' } }),
    handler: ({ fathom, account, params, query }) =>
      fathom.documents.listBatchFiles(account.id, params.id, params.batch_id, {
        ...parseListQuery(query),
        filter: query.filter || undefined,
      }),
  }),
];
