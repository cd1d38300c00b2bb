// Files, vector stores, store files and file batches over fathom.documents (parse, call core, serialize).
import { FileTooLargeError, InvalidRequestError, parseListQuery, type StagedUpload } from '@fathom/core';
import type { FastifyReply } from 'fastify';
import type { Route } from '../route';
import { MAX_UPLOAD_BYTES } from '../server';

/** How long the SDK's poll helpers (`uploadAndPoll`, `createAndPoll`) wait between reads, via `openai-poll-after-ms`. */
const POLL_AFTER_MS = '200';
const pollable = (reply: FastifyReply) => reply.header('openai-poll-after-ms', POLL_AFTER_MS);

const OBJECT_BODY = { body: { type: 'object' } };
const LIST_QUERY = (extra: Record<string, unknown> = {}) => ({
  querystring: {
    type: 'object',
    properties: { limit: { type: 'string' }, order: { type: 'string' }, after: { type: 'string' }, before: { type: 'string' }, ...extra },
  },
});

async function drain(stream: NodeJS.ReadableStream): Promise<void> {
  for await (const _ of stream as AsyncIterable<unknown>);
}

export const documentsRoutes: Route[] = [
  // ---- files ----
  {
    method: 'POST',
    path: '/v1/files',
    handler: async ({ fathom, account, request }) => {
      if (!request.isMultipart()) {
        throw new InvalidRequestError("Expected a multipart/form-data body with the fields 'file' and 'purpose'.", 'file');
      }
      const { documents } = fathom;
      let staged: StagedUpload | undefined;
      let filename = '';
      let purpose: string | undefined;
      // OpenAI's multipart form spells the object as `expires_after[anchor]` and `expires_after[seconds]`.
      const expiresAfter: Record<string, string> = {};
      let tooLarge = false;
      try {
        // Busboy truncates an oversized file and sets `truncated`; the rest of the body is still read so the 413 arrives cleanly.
        for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES }, throwFileSizeLimit: false } as Parameters<
          typeof request.parts
        >[0])) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file' || staged || tooLarge) {
              await drain(part.file);
              continue;
            }
            const upload = await documents.stageUpload(part.file);
            if (part.file.truncated) {
              documents.files.discard(upload);
              tooLarge = true;
            } else {
              staged = upload;
              filename = part.filename;
            }
          } else if (part.fieldname === 'purpose') {
            purpose = String(part.value);
          } else if (/^expires_after\[(anchor|seconds)\]$/.test(part.fieldname)) {
            expiresAfter[part.fieldname.slice(14, -1)] = String(part.value);
          }
        }
      } catch (error) {
        if (staged) documents.files.discard(staged);
        throw error;
      }
      if (tooLarge) throw new FileTooLargeError(MAX_UPLOAD_BYTES);
      const missing = [!staged && 'file', !purpose && 'purpose'].filter(Boolean) as string[];
      if (missing.length) {
        if (staged) documents.files.discard(staged);
        throw new InvalidRequestError(missing.map((field) => `Missing required parameter: '${field}'.`).join(' '), missing[0]);
      }
      // The staged bytes are committed or discarded by core either way.
      return documents.commitUpload(account.id, staged!, {
        filename,
        purpose: purpose!,
        expires_after: Object.keys(expiresAfter).length ? expiresAfter : undefined,
      });
    },
  },
  {
    method: 'GET',
    path: '/v1/files',
    schema: LIST_QUERY({ purpose: { type: 'string' } }),
    handler: ({ fathom, account, query }) =>
      fathom.documents.listFiles(account.id, { ...parseListQuery(query, 10_000), purpose: query.purpose || undefined }),
  },
  {
    method: 'GET',
    path: '/v1/files/:id',
    handler: ({ fathom, account, params }) => fathom.documents.getFile(account.id, params.id!),
  },
  {
    method: 'GET',
    path: '/v1/files/:id/content',
    handler: async ({ fathom, account, params, reply }) => {
      const { file, stream } = await fathom.documents.openFileContent(account.id, params.id!);
      // Returning the reply tells fastify the stream answers the request.
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(file.bytes))
        .header('content-disposition', `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`)
        .send(stream);
    },
  },
  {
    method: 'DELETE',
    path: '/v1/files/:id',
    handler: ({ fathom, account, params }) => fathom.documents.deleteFile(account.id, params.id!),
  },

  // ---- vector stores ----
  {
    method: 'POST',
    path: '/v1/vector_stores',
    schema: OBJECT_BODY,
    handler: ({ fathom, account, body }) => fathom.documents.createStore(account.id, body),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores',
    schema: LIST_QUERY(),
    handler: ({ fathom, account, query }) => fathom.documents.listStores(account.id, parseListQuery(query)),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id',
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getStore(account.id, params.id!);
    },
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/:id',
    schema: OBJECT_BODY,
    handler: ({ fathom, account, params, body }) => fathom.documents.updateStore(account.id, params.id!, body),
  },
  {
    method: 'DELETE',
    path: '/v1/vector_stores/:id',
    handler: ({ fathom, account, params }) => fathom.documents.deleteStore(account.id, params.id!),
  },

  // ---- store files ----
  {
    method: 'POST',
    path: '/v1/vector_stores/:id/files',
    schema: { body: { type: 'object', required: ['file_id'], properties: { file_id: { type: 'string', minLength: 1 } } } },
    handler: ({ fathom, account, params, body }) => fathom.documents.addStoreFile(account.id, params.id!, body),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id/files',
    schema: LIST_QUERY({ filter: { type: 'string' } }),
    handler: ({ fathom, account, params, query }) =>
      fathom.documents.listStoreFiles(account.id, params.id!, { ...parseListQuery(query), filter: query.filter || undefined }),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id',
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getStoreFile(account.id, params.id!, params.file_id!);
    },
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/:id/files/:file_id',
    schema: { body: { type: 'object', required: ['attributes'] } },
    handler: ({ fathom, account, params, body }) => fathom.documents.updateStoreFile(account.id, params.id!, params.file_id!, body),
  },
  {
    method: 'DELETE',
    path: '/v1/vector_stores/:id/files/:file_id',
    handler: ({ fathom, account, params }) => fathom.documents.deleteStoreFile(account.id, params.id!, params.file_id!),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id/files/:file_id/content',
    handler: ({ fathom, account, params }) => fathom.documents.storeFileContent(account.id, params.id!, params.file_id!),
  },

  // ---- file batches ----
  {
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches',
    schema: OBJECT_BODY,
    handler: ({ fathom, account, params, body }) => fathom.documents.createBatch(account.id, params.id!, body),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id',
    handler: ({ fathom, account, params, reply }) => {
      pollable(reply);
      return fathom.documents.getBatch(account.id, params.id!, params.batch_id!);
    },
  },
  {
    method: 'POST',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/cancel',
    handler: ({ fathom, account, params }) => fathom.documents.cancelBatch(account.id, params.id!, params.batch_id!),
  },
  {
    method: 'GET',
    path: '/v1/vector_stores/:id/file_batches/:batch_id/files',
    schema: LIST_QUERY({ filter: { type: 'string' } }),
    handler: ({ fathom, account, params, query }) =>
      fathom.documents.listBatchFiles(account.id, params.id!, params.batch_id!, {
        ...parseListQuery(query),
        filter: query.filter || undefined,
      }),
  },
];
