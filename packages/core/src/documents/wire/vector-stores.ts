import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { Deleted, ListPage, ListQuery, Metadata, Nullable, OptionalNullable, StringEnum, TaggedUnion } from '../../wire';
import { MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS } from '../chunking';

/** `chunking_strategy` of a request: `auto`, or `static` sizes (the overlap at most half the size is checked in core). */
export const ChunkingStrategyParam = TaggedUnion(
  'type',
  [
    Type.Object({ type: Type.Literal('auto') }),
    Type.Object({
      type: Type.Literal('static'),
      static: Type.Object({
        max_chunk_size_tokens: Type.Integer({ minimum: MIN_CHUNK_TOKENS, maximum: MAX_CHUNK_TOKENS }),
        chunk_overlap_tokens: Type.Integer({ minimum: 0, description: 'At most half of max_chunk_size_tokens.' }),
      }),
    }),
  ],
  { title: 'ChunkingStrategyParam' },
);
export type ChunkingStrategyParam = Static<typeof ChunkingStrategyParam>;

/** A store expires `days` after it was last active. */
export const VectorStoreExpiresAfter = Type.Object(
  { anchor: Type.Literal('last_active_at'), days: Type.Integer({ minimum: 1, maximum: 365 }) },
  { title: 'VectorStoreExpiresAfter' },
);
export type VectorStoreExpiresAfter = Static<typeof VectorStoreExpiresAfter>;

export const VectorStoreCreateParams = Type.Object(
  {
    name: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.name })),
    description: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.description })),
    file_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 500, description: 'Files to add at creation (at most 500).' })),
    chunking_strategy: OptionalNullable(ChunkingStrategyParam),
    expires_after: OptionalNullable(VectorStoreExpiresAfter),
    metadata: OptionalNullable(Metadata),
  },
  { title: 'VectorStoreCreateParams' },
);
export type VectorStoreCreateParams = Static<typeof VectorStoreCreateParams>;

export const VectorStoreUpdateParams = Type.Object(
  {
    name: OptionalNullable(Type.String({ maxLength: FIELD_LIMITS.name })),
    expires_after: OptionalNullable(VectorStoreExpiresAfter),
    metadata: OptionalNullable(Metadata),
  },
  { title: 'VectorStoreUpdateParams' },
);
export type VectorStoreUpdateParams = Static<typeof VectorStoreUpdateParams>;

export const VectorStoreListParams = ListQuery();
export type VectorStoreListParams = Static<typeof VectorStoreListParams>;

/** Files of a store by status. */
export const FileCounts = Type.Object(
  {
    in_progress: Type.Integer(),
    completed: Type.Integer(),
    failed: Type.Integer(),
    cancelled: Type.Integer(),
    total: Type.Integer(),
  },
  { title: 'VectorStoreFileCounts', additionalProperties: false },
);
export type FileCounts = Static<typeof FileCounts>;

/** A vector store as the SDK types it (`expires_after` only when set). */
export const VectorStore = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('vector_store'),
    created_at: Type.Integer(),
    name: Nullable(Type.String()),
    description: Nullable(Type.String()),
    usage_bytes: Type.Integer(),
    file_counts: FileCounts,
    status: StringEnum(['expired', 'in_progress', 'completed']),
    expires_after: Type.Optional(VectorStoreExpiresAfter),
    expires_at: Nullable(Type.Integer()),
    last_active_at: Nullable(Type.Integer()),
    metadata: Nullable(Metadata),
  },
  { title: 'VectorStore', additionalProperties: false },
);
export type VectorStore = Static<typeof VectorStore>;

export const VectorStoreDeleted = Deleted('vector_store.deleted');
export type VectorStoreDeleted = Static<typeof VectorStoreDeleted>;

export const VectorStorePage = ListPage(VectorStore);
export type VectorStorePage = Static<typeof VectorStorePage>;
