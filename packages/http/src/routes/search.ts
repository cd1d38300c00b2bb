// POST /v1/vector_stores/:id/search: hybrid search of one store, as the SDK types it.
import { parseSearchRequest } from '@fathom/core';
import { defineRoute, type Route } from '../route';

export const searchRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/vector_stores/:id/search',
    schema: { body: { type: 'object', required: ['query'] } },
    handler: async ({ fathom, account, params, body }) => {
      const options = parseSearchRequest(body);
      const { search_query, data } = await fathom.documents.searchStores(account.id, [params.id], options);
      return {
        object: 'vector_store.search_results.page',
        search_query,
        data,
        has_more: false,
        next_page: null,
      };
    },
  }),
];
