import { type Static, Type } from '@sinclair/typebox';
import { AttributeFilterParam } from '../../vector/wire/attribute-filter';
import { Nullable, OptionalNullable, StringEnum } from '../../wire';
import { Attributes } from './vector-store-files';

/** Results of one search at most. */
export const MAX_SEARCH_RESULTS = 50;

const Query = Type.String({ pattern: '\\S', description: 'A query with at least one non-space character.' });

export const VectorStoreSearchParams = Type.Object(
  {
    query: Type.Union([Query, Type.Array(Query, { minItems: 1 })]),
    max_num_results: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, description: `Results at most, 1 to ${MAX_SEARCH_RESULTS} (default 10).` }),
    ),
    filters: OptionalNullable(AttributeFilterParam),
    ranking_options: Type.Optional(
      Type.Object({
        ranker: Type.Optional(StringEnum(['none', 'auto', 'default-2024-11-15'])),
        score_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      }),
    ),
    rewrite_query: Type.Optional(Type.Boolean({ description: 'Rewrite the query for search first (default false).' })),
  },
  { title: 'VectorStoreSearchParams' },
);
export type VectorStoreSearchParams = Static<typeof VectorStoreSearchParams>;

/** One result of a search (`VectorStoreSearchResponse`): a file's passages with a score in 0..1. */
export const VectorStoreSearchResponse = Type.Object(
  {
    file_id: Type.String(),
    filename: Type.String(),
    score: Type.Number(),
    attributes: Nullable(Attributes),
    content: Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: false })),
  },
  { title: 'VectorStoreSearchResponse', additionalProperties: false },
);
export type VectorStoreSearchResponse = Static<typeof VectorStoreSearchResponse>;

/** What `POST /v1/vector_stores/{id}/search` answers: the queries searched (after any rewrite) and one page of results. */
export const VectorStoreSearchPage = Type.Object(
  {
    object: Type.Literal('vector_store.search_results.page'),
    search_query: Type.Array(Type.String()),
    data: Type.Array(VectorStoreSearchResponse),
    has_more: Type.Boolean(),
    next_page: Nullable(Type.String()),
  },
  { title: 'VectorStoreSearchPage', additionalProperties: false },
);
export type VectorStoreSearchPage = Static<typeof VectorStoreSearchPage>;
