import { type Static, Type } from '@sinclair/typebox';
import { Deleted, ListPage, ListQuery, StringEnum } from '../../wire';

/** Purposes `POST /v1/files` accepts (OpenAI's `FilePurpose`). */
export const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;

/**
 * Largest file Fathom stores or reads inline, in bytes: 25 MB (decimal, as the spec states the
 * `POST /v1/files` limit). Uploads past it answer 413 `file_too_large`; inline `file_data` past it, 400.
 */
export const MAX_FILE_BYTES = 25_000_000;
export const FilePurpose = StringEnum(FILE_PURPOSES, { title: 'FilePurpose' });
export type FilePurpose = Static<typeof FilePurpose>;

/** The file is deleted `seconds` after its creation (one hour to 30 days). */
export const FileExpiresAfter = Type.Object(
  { anchor: Type.Literal('created_at'), seconds: Type.Integer({ minimum: 3600, maximum: 2_592_000 }) },
  { title: 'FileExpiresAfter' },
);
export type FileExpiresAfter = Static<typeof FileExpiresAfter>;

/**
 * The fields of an upload besides its bytes. A multipart form sends them as strings (`purpose`,
 * `expires_after[anchor]`, `expires_after[seconds]`); they are checked as a query string is, so
 * `seconds` may arrive as a numeric string.
 */
export const FileCreateFields = Type.Object(
  { purpose: FilePurpose, expires_after: Type.Optional(FileExpiresAfter) },
  { title: 'FileCreateFields' },
);
export type FileCreateFields = Static<typeof FileCreateFields>;

/** The multipart/form-data body of `POST /v1/files` (documentation: the route reads the form itself). */
export const FileCreateForm = Type.Object(
  {
    file: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary', description: 'The bytes, at most 25 MB.' }),
    ...FileCreateFields.properties,
  },
  { title: 'FileCreateForm' },
);

/** A file to create from bytes in memory (an embedding app, the CLI). */
export type FileCreateParams = FileCreateFields & { file: Uint8Array; filename: string };

export const FileListParams = ListQuery({ purpose: Type.Optional(Type.String({ description: 'Only files of this purpose.' })) }, 10_000);
export type FileListParams = Static<typeof FileListParams>;

/**
 * A file as the SDK types it (`FileObject`): `expires_at` only when the file expires, and no
 * `status_details` (optional, not nullable). `purpose` is one the upload accepted.
 */
export const FileObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('file'),
    bytes: Type.Integer(),
    created_at: Type.Integer(),
    filename: Type.String(),
    purpose: FilePurpose,
    status: StringEnum(['uploaded', 'processed', 'error']),
    expires_at: Type.Optional(Type.Integer()),
    status_details: Type.Optional(Type.String()),
  },
  { title: 'FileObject', additionalProperties: false },
);
export type FileObject = Static<typeof FileObject>;

export const FileDeleted = Deleted('file');
export type FileDeleted = Static<typeof FileDeleted>;

export const FilePage = ListPage(FileObject);
export type FilePage = Static<typeof FilePage>;
