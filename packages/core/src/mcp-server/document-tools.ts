import { type Static, Type } from '@sinclair/typebox';
import { VectorStoreSearchParams } from '../documents';
import { boundToolResult } from '../internal/tool-result';
import type { SearchHit } from '../vector';
import type { McpDocuments } from './sources';
import { checkArguments } from './tool-arguments';
import { type McpTool, textResult } from './types';

/** Stores one `file_search` call may search together. */
export const MAX_SEARCH_STORES = 10;

/** What `file_search` validates: the search route's own fields, several stores at once. */
const FileSearchArguments = Type.Object({
  query: VectorStoreSearchParams.properties.query,
  vector_store_ids: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_SEARCH_STORES }),
  max_num_results: VectorStoreSearchParams.properties.max_num_results,
  filters: VectorStoreSearchParams.properties.filters,
});
type FileSearchArguments = Static<typeof FileSearchArguments>;

const ListStoresArguments = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  after: Type.Optional(Type.String({ minLength: 1 })),
});
type ListStoresArguments = Static<typeof ListStoresArguments>;

/**
 * The input schema `file_search` shows: `filters` without the recursion the validator has (a `$ref` to
 * itself), which clients that turn a tool into a model's function definition do not all follow.
 */
const FILE_SEARCH_INPUT: McpTool['definition']['inputSchema'] = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for, in words (the search is hybrid: meaning and keywords).' },
    vector_store_ids: {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: MAX_SEARCH_STORES,
      description: 'The vector stores to search (ids `vs_…`, see list_vector_stores).',
    },
    max_num_results: { type: 'integer', minimum: 1, maximum: 50, description: 'Passages at most, 1 to 50 (default 10).' },
    filters: {
      type: 'object',
      description:
        'Optional filter on file attributes: {"type": "eq"|"ne"|"gt"|"gte"|"lt"|"lte", "key", "value"}, ' +
        '{"type": "in"|"nin", "key", "value": [...]}, or {"type": "and"|"or", "filters": [...]}.',
    },
  },
  required: ['query', 'vector_store_ids'],
};

/** One passage as the text a model reads: rank, file name, score, then the passage. */
function describeHit(hit: SearchHit, rank: number): string {
  const text = hit.content.map((part) => part.text).join('\n');
  return `[${rank}] ${hit.filename} (file ${hit.file_id}, score ${hit.score.toFixed(3)})\n${text}`;
}

/** `file_search` and `list_vector_stores`: the account's documents, read-only. */
export function documentTools(documents: McpDocuments): McpTool[] {
  const fileSearch: McpTool = {
    definition: {
      name: 'file_search',
      title: 'Search documents',
      description:
        'Searches vector stores of this Fathom account and answers the best passages, each with its file name and a relevance score in 0..1.',
      inputSchema: FILE_SEARCH_INPUT,
      annotations: { title: 'Search documents', readOnlyHint: true, openWorldHint: false },
    },
    async call(args, { accountId }) {
      const input = checkArguments<FileSearchArguments>('file_search', FileSearchArguments, args);
      const hits = await documents.search(accountId, [...new Set(input.vector_store_ids)], {
        query: input.query,
        maxNumResults: input.max_num_results ?? 10,
        filters: input.filters ?? undefined,
      });
      const text = hits.length ? hits.map((hit, index) => describeHit(hit, index + 1)).join('\n\n') : 'No passage matched the query.';
      return {
        content: [{ type: 'text', text: boundToolResult(text) }],
        structuredContent: {
          results: hits.map((hit) => ({
            file_id: hit.file_id,
            filename: hit.filename,
            score: hit.score,
            attributes: hit.attributes,
            text: hit.content.map((part) => part.text).join('\n'),
          })),
        },
      };
    },
  };
  const listStores: McpTool = {
    definition: {
      name: 'list_vector_stores',
      title: 'List vector stores',
      description: 'Lists the vector stores of this Fathom account (oldest first): id, name, status and file counts.',
      inputSchema: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Stores at most, 1 to 100 (default 100).' },
          after: { type: 'string', description: 'A store id: the list starts after it (the `last_id` of the previous call).' },
        },
      },
      annotations: { title: 'List vector stores', readOnlyHint: true, openWorldHint: false },
    },
    async call(args, { accountId }) {
      const input = checkArguments<ListStoresArguments>('list_vector_stores', ListStoresArguments, args);
      const page = await documents.listVectorStores(accountId, { limit: input.limit ?? 100, after: input.after });
      const stores = page.data.map((store) => ({
        id: store.id,
        name: store.name,
        status: store.status,
        file_counts: store.file_counts,
        usage_bytes: store.usage_bytes,
      }));
      const lines = stores.map(
        (store) =>
          `${store.id}: ${store.name || '(no name)'} (${store.status}, ${store.file_counts.completed} of ${store.file_counts.total} files ready)`,
      );
      if (page.has_more) lines.push(`More stores follow: call again with after = "${page.last_id}".`);
      return {
        ...textResult(lines.length ? lines.join('\n') : 'This account has no vector store.'),
        structuredContent: { data: stores, has_more: page.has_more, last_id: page.last_id },
      };
    },
  };
  return [fileSearch, listStores];
}
