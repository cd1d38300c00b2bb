import { type Static, Type } from '@sinclair/typebox';
import { Deleted, ListPage, ListQuery, Nullable, OptionalNullable, StringEnum } from '../../wire';
import { ChunkingStrategyParam } from './vector-stores';

/** Statuses of a file in a vector store. */
export const STORE_FILE_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;

/**
 * `attributes` of a store file (what search `filters` compare): at most 16 keys of up to 64 characters;
 * values strings of up to 512 characters, numbers or booleans.
 */
export const Attributes = Type.Record(
  Type.String(),
  Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'], maxLength: 512 }),
  {
    title: 'Attributes',
    maxProperties: 16,
    propertyNames: { maxLength: 64 },
    description: 'Up to 16 keys of up to 64 characters; values strings of up to 512 characters, numbers or booleans.',
  },
);
export type Attributes = Static<typeof Attributes>;

export const VectorStoreFileCreateParams = Type.Object(
  {
    file_id: Type.String({ minLength: 1 }),
    attributes: OptionalNullable(Attributes),
    chunking_strategy: OptionalNullable(ChunkingStrategyParam),
  },
  { title: 'VectorStoreFileCreateParams' },
);
export type VectorStoreFileCreateParams = Static<typeof VectorStoreFileCreateParams>;

/** `attributes` replaces the file's attributes (`null` clears them). */
export const VectorStoreFileUpdateParams = Type.Object({ attributes: Nullable(Attributes) }, { title: 'VectorStoreFileUpdateParams' });
export type VectorStoreFileUpdateParams = Static<typeof VectorStoreFileUpdateParams>;

export const VectorStoreFileListParams = ListQuery({
  filter: Type.Optional(StringEnum(STORE_FILE_STATUSES, { description: 'Only files of this status.' })),
});
export type VectorStoreFileListParams = Static<typeof VectorStoreFileListParams>;

/** The chunk sizes a file was ingested with (`auto` is reported as the sizes it resolved to). */
export const StaticFileChunkingStrategy = Type.Object(
  {
    type: Type.Literal('static'),
    static: Type.Object({ max_chunk_size_tokens: Type.Integer(), chunk_overlap_tokens: Type.Integer() }, { additionalProperties: false }),
  },
  { title: 'StaticFileChunkingStrategyObject', additionalProperties: false },
);

/** A file in a vector store as the SDK types it (`VectorStoreFile`). */
export const VectorStoreFile = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('vector_store.file'),
    usage_bytes: Type.Integer(),
    created_at: Type.Integer(),
    vector_store_id: Type.String(),
    status: StringEnum(STORE_FILE_STATUSES),
    last_error: Nullable(
      Type.Object(
        { code: StringEnum(['server_error', 'unsupported_file', 'invalid_file']), message: Type.String() },
        { additionalProperties: false },
      ),
    ),
    chunking_strategy: Type.Optional(StaticFileChunkingStrategy),
    attributes: Type.Optional(Nullable(Attributes)),
  },
  { title: 'VectorStoreFile', additionalProperties: false },
);
export type VectorStoreFile = Static<typeof VectorStoreFile>;

export const VectorStoreFileDeleted = Deleted('vector_store.file.deleted');
export type VectorStoreFileDeleted = Static<typeof VectorStoreFileDeleted>;

export const VectorStoreFilePage = ListPage(VectorStoreFile);
export type VectorStoreFilePage = Static<typeof VectorStoreFilePage>;

/** One part of a file's parsed text (`FileContentResponse`). */
export const FileContentResponse = Type.Object(
  { type: Type.Literal('text'), text: Type.String() },
  { title: 'FileContentResponse', additionalProperties: false },
);
export type FileContentResponse = Static<typeof FileContentResponse>;

/** `GET /v1/vector_stores/{id}/files/{file_id}/content`: the parsed text, one page. */
export const VectorStoreFileContentPage = Type.Object(
  {
    object: Type.Literal('vector_store.file_content.page'),
    data: Type.Array(FileContentResponse),
    has_more: Type.Boolean(),
    next_page: Nullable(Type.String()),
  },
  { title: 'VectorStoreFileContentPage', additionalProperties: false },
);
export type VectorStoreFileContentPage = Static<typeof VectorStoreFileContentPage>;
