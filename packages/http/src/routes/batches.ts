// Batches: OpenAI's Batch API over fathom.batches (parse, call core, serialize).
import { Batch, BatchCreateParams, BatchesPage, BatchListParams, Type } from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** A cancel takes no body. */
const NO_BODY = Type.Object({});

export const batchesRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/batches',
    summary: "Create a batch from a JSONL file of requests (purpose 'batch').",
    operationId: 'createBatch',
    schema: { body: BatchCreateParams, response: Batch },
    handler: ({ fathom, account, body }) => fathom.batches.create(account.id, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/batches',
    summary: 'List batches.',
    operationId: 'listBatches',
    schema: { querystring: BatchListParams, response: BatchesPage },
    handler: ({ fathom, account, query }) => fathom.batches.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/batches/:batch_id',
    summary: 'Retrieve a batch.',
    operationId: 'retrieveBatch',
    schema: { response: Batch },
    handler: ({ fathom, account, params }) => fathom.batches.retrieve(account.id, params.batch_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/batches/:batch_id/cancel',
    summary: 'Cancel a batch: it ends `cancelled` with the output of the requests that finished.',
    operationId: 'cancelBatch',
    schema: { body: NO_BODY, response: Batch },
    handler: ({ fathom, account, params }) => fathom.batches.cancel(account.id, params.batch_id),
  }),
];
