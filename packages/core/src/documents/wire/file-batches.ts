import { type Static, Type } from '@sinclair/typebox';
import { OptionalNullable, StringEnum } from '../../wire';
import { Attributes, STORE_FILE_STATUSES, VectorStoreFileListParams } from './vector-store-files';
import { ChunkingStrategyParam, FileCounts } from './vector-stores';

/** Files a batch adds at most (and at least one). */
export const MAX_BATCH_FILES = 2000;

/** One file of `files[]`, with its own attributes and chunking. */
export const FileBatchFile = Type.Object(
  {
    file_id: Type.String({ minLength: 1 }),
    attributes: OptionalNullable(Attributes),
    chunking_strategy: OptionalNullable(ChunkingStrategyParam),
  },
  { title: 'FileBatchFile' },
);

/**
 * `file_ids` (with shared `attributes` and `chunking_strategy`) or `files[]` with per-file options,
 * 1..2000 either way. Exactly one of the two is given (checked in core).
 */
export const FileBatchCreateParams = Type.Object(
  {
    file_ids: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_BATCH_FILES })),
    files: Type.Optional(Type.Array(FileBatchFile, { minItems: 1, maxItems: MAX_BATCH_FILES })),
    attributes: OptionalNullable(Attributes),
    chunking_strategy: OptionalNullable(ChunkingStrategyParam),
  },
  { title: 'FileBatchCreateParams' },
);
export type FileBatchCreateParams = Static<typeof FileBatchCreateParams>;

export const FileBatchListFilesParams = VectorStoreFileListParams;
export type FileBatchListFilesParams = Static<typeof FileBatchListFilesParams>;

/** A file batch as the SDK types it (`VectorStoreFileBatch`). */
export const VectorStoreFileBatch = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('vector_store.files_batch'),
    created_at: Type.Integer(),
    vector_store_id: Type.String(),
    status: StringEnum(STORE_FILE_STATUSES),
    file_counts: FileCounts,
  },
  { title: 'VectorStoreFileBatch', additionalProperties: false },
);
export type VectorStoreFileBatch = Static<typeof VectorStoreFileBatch>;
