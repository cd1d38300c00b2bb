// Files, vector stores, store files and file batches over fathom.files and fathom.vectorStores (parse, call core, serialize).
import {
  FileBatchCreateParams,
  FileBatchListFilesParams,
  FileCreateForm,
  FileDeleted,
  FileListParams,
  FileObject,
  FilePage,
  Type,
  VectorStore,
  VectorStoreCreateParams,
  VectorStoreDeleted,
  VectorStoreFile,
  VectorStoreFileBatch,
  VectorStoreFileContentPage,
  VectorStoreFileCreateParams,
  VectorStoreFileDeleted,
  VectorStoreFileListParams,
  VectorStoreFilePage,
  VectorStoreFileUpdateParams,
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

/** The body of a POST that takes none (cancel). */
const NO_BODY = Type.Object({});

export const documentsRoutes: Route[] = [
  // ---- files ----
  defineRoute({
    method: 'POST',
    path: '/v1/files',
    summary: 'Upload a file.',
    operationId: 'createFile',
    multipart: true,
    schema: { form: FileCreateForm, response: FileObject },
    handler: async ({ fathom, account, request }) => {
      const { staged, filename, fields } = await readUploadForm(fathom, request);
      // The staged bytes are committed or discarded by core either way.
      return fathom.files.commit(account.id, staged, { ...fields, filename });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files',
    summary: 'List files.',
    operationId: 'listFiles',
    schema: { querystring: FileListParams, response: FilePage },
    handler: ({ fathom, account, query }) => fathom.files.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files/:id',
    summary: 'Retrieve a file.',
    operationId: 'retrieveFile',
    schema: { response: FileObject },
    handler: ({ fathom, account, params }) => fathom.files.retrieve(account.id, params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/files/:id/content',
    summary: 'Download the bytes of a file.',
    operationId: 'downloadFile',
    produces: 'bytes',
    handler: async ({ fathom, account, params, reply }) => {
      const { file, stream } = await fathom.files.content(account.id, params.id);
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
    summary: 'Delete a file (and its chunks from every vector store).',
    operationId: 'deleteFile',
    schema: { response: FileDeleted },
    handler: ({ fathom, account, params }) => fathom.files.delete(account.id, params.id),
  }),

  // ---- vector stores ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores',
    summary: 'Create a vector store.',
    operationId: 'createVectorStore',
    schema: { body: VectorStoreCreateParams, response: VectorStore },
    handler: ({ fathom, account, body }) => fathom.vectorStores.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores',
    summary: 'List vector stores.',
    operationId: 'listVectorStores',
    schema: { querystring: VectorStoreListParams, response: VectorStorePage },
    handler: ({ fathom, account, query }) => fathom.vectorStores.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id',
    summary: 'Retrieve a vector store.',
    operationId: 'getVectorStore',
    schema: { response: VectorStore },
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.vectorStores.retrieve(account.id, params.id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id',
    summary: 'Modify a vector store.',
    operationId: 'modifyVectorStore',
    schema: { body: VectorStoreUpdateParams, response: VectorStore },
    handler: ({ fathom, account, params, body }) => fathom.vectorStores.update(account.id, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/vector_stores/:id',
    summary: 'Delete a vector store.',
    operationId: 'deleteVectorStore',
    schema: { response: VectorStoreDeleted },
    handler: ({ fathom, account, params }) => fathom.vectorStores.delete(account.id, params.id),
  }),

  // ---- store files ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/files',
    summary: 'Add a file to a vector store (ingested in the background).',
    operationId: 'createVectorStoreFile',
    schema: { body: VectorStoreFileCreateParams, response: VectorStoreFile },
    handler: ({ fathom, account, params, body }) => fathom.vectorStores.files.create(account.id, params.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files',
    summary: 'List the files of a vector store.',
    operationId: 'listVectorStoreFiles',
    schema: { querystring: VectorStoreFileListParams, response: VectorStoreFilePage },
    handler: ({ fathom, account, params, query }) => fathom.vectorStores.files.list(account.id, params.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id',
    summary: 'Retrieve a file of a vector store (its ingestion status).',
    operationId: 'getVectorStoreFile',
    schema: { response: VectorStoreFile },
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.vectorStores.files.retrieve(account.id, params.id, params.file_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/files/:file_id',
    summary: 'Replace the attributes of a file in a vector store.',
    operationId: 'updateVectorStoreFileAttributes',
    schema: { body: VectorStoreFileUpdateParams, response: VectorStoreFile },
    handler: ({ fathom, account, params, body }) => fathom.vectorStores.files.update(account.id, params.id, params.file_id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/vector_stores/:id/files/:file_id',
    summary: 'Remove a file from a vector store (the file stays).',
    operationId: 'deleteVectorStoreFile',
    schema: { response: VectorStoreFileDeleted },
    handler: ({ fathom, account, params }) => fathom.vectorStores.files.delete(account.id, params.id, params.file_id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id/content',
    summary: 'The parsed text of a file in a vector store.',
    operationId: 'retrieveVectorStoreFileContent',
    schema: { response: VectorStoreFileContentPage },
    handler: ({ fathom, account, params }) => fathom.vectorStores.files.content(account.id, params.id, params.file_id),
  }),

  // ---- file batches ----
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches',
    summary: 'Add many files to a vector store at once.',
    operationId: 'createVectorStoreFileBatch',
    schema: { body: FileBatchCreateParams, response: VectorStoreFileBatch },
    handler: ({ fathom, account, params, body }) => fathom.vectorStores.fileBatches.create(account.id, params.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id',
    summary: 'Retrieve a file batch (its files counted by status).',
    operationId: 'getVectorStoreFileBatch',
    schema: { response: VectorStoreFileBatch },
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.vectorStores.fileBatches.retrieve(account.id, params.id, params.batch_id);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/cancel',
    summary: 'Cancel a file batch (its files still in progress end cancelled).',
    operationId: 'cancelVectorStoreFileBatch',
    schema: { body: NO_BODY, response: VectorStoreFileBatch },
    handler: ({ fathom, account, params }) => fathom.vectorStores.fileBatches.cancel(account.id, params.id, params.batch_id),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/files',
    summary: 'List the files of a file batch.',
    operationId: 'listFilesInVectorStoreBatch',
    schema: { querystring: FileBatchListFilesParams, response: VectorStoreFilePage },
    handler: ({ fathom, account, params, query }) =>
      fathom.vectorStores.fileBatches.listFiles(account.id, params.id, params.batch_id, query),
  }),
];
