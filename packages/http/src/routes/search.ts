// POST /v1/vector_stores/:id/search: hybrid search of one store, as the SDK types it.
import { VectorStoreSearchPage, VectorStoreSearchParams } from '@fathom/core';
import { defineRoute, type Route } from '../route';

export const searchRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/search',
    summary: 'Search a vector store (hybrid: vectors and keywords, one score in 0..1).',
    operationId: 'searchVectorStore',
    schema: { body: VectorStoreSearchParams, response: VectorStoreSearchPage },
    handler: ({ fathom, account, params, body }) => fathom.vectorStores.search(account.id, params.id, body),
  }),
];
