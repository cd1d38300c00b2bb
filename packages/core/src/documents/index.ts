// Documents: `fathom.files` and `fathom.vectorStores` (with `.files`, `.fileBatches`, `.search`), and their wire format.
export type { Files, FileUploadParams, StagedUpload } from './files';
export type { VectorStores } from './vector-stores';
export type { VectorStoreFiles } from './vector-store-files';
export type { VectorStoreFileBatches } from './vector-store-file-batches';
export { documentsSchema } from './schema';
export * from './wire/files';
export * from './wire/vector-stores';
export * from './wire/vector-store-files';
export * from './wire/file-batches';
export * from './wire/search';
