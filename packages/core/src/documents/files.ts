import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FathomError, InvalidRequestError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { isStorageFull } from '../storage';
import type { DocumentsCore } from './documents-core';
import type { FileRow } from './files-repository';
import type { FileCreateFields, FileCreateParams, FileDeleted, FileListParams, FileObject, FilePage, FilePurpose } from './wire/files';

/** Bytes written to a temporary path, not yet a file: `commit` stores them, `discard` deletes them. */
export interface StagedUpload {
  path: string;
  bytes: number;
}

/** What `commit` stores besides the bytes: the upload's fields and the name the file came with. */
export type FileUploadParams = FileCreateFields & { filename: string };

/**
 * Uploaded files (`fathom.files`, OpenAI's `files`): metadata in `files`, bytes in `FileBlobs` (the data
 * dir on SQLite, the database on PostgreSQL). Uploads stream to `<data dir>/files/.tmp/` (a local cache
 * of every node) and become a file only once complete and within the limit. An expired file answers 404
 * at once; the periodic sweep deletes it. Another account's file answers 404 like a missing one.
 */
export class Files {
  private readonly tmpDir: string;

  constructor(private readonly core: DocumentsCore) {
    this.tmpDir = join(core.dataDir, 'files', '.tmp');
    mkdirSync(this.tmpDir, { recursive: true });
    // Partial uploads of a crashed process are garbage; recent ones may belong to another live process.
    for (const name of readdirSync(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      try {
        if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true });
      } catch {
        // Removed meanwhile.
      }
    }
  }

  /** Creates a file from bytes in memory (an embedding app, the CLI). */
  async create(accountId: string, params: FileCreateParams): Promise<FileObject> {
    const path = this.tmpPath();
    try {
      writeFileSync(path, params.file);
    } catch (error) {
      this.discard({ path, bytes: 0 });
      throw storageError(error);
    }
    const { file, ...fields } = params;
    return this.commit(accountId, { path, bytes: file.byteLength }, fields);
  }

  /** Streams an upload to a temporary path (`POST /v1/files`). The caller checks size limits, then commits or discards. */
  async stage(source: Readable): Promise<StagedUpload> {
    const path = this.tmpPath();
    let bytes = 0;
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    try {
      await pipeline(source, createWriteStream(path));
    } catch (error) {
      this.discard({ path, bytes });
      throw storageError(error);
    }
    return { path, bytes };
  }

  discard(staged: StagedUpload): void {
    rmSync(staged.path, { force: true });
  }

  /** Turns staged bytes into a file of the account (row and bytes together); the staged bytes are gone either way. */
  async commit(accountId: string, staged: StagedUpload, params: FileUploadParams): Promise<FileObject> {
    let row: FileRow;
    try {
      const createdAt = nowSeconds();
      row = {
        id: newId('file-'),
        account_id: accountId,
        filename: fileName(params.filename),
        purpose: params.purpose,
        bytes: staged.bytes,
        created_at: createdAt,
        expires_at: params.expires_after ? createdAt + params.expires_after.seconds : null,
      };
    } catch (error) {
      this.discard(staged);
      throw error;
    }
    try {
      await this.core.db.transaction(async (tx) => {
        await this.core.repos.files.in(tx).insert(row);
        await this.core.repos.blobs.in(tx).put(row.id, staged.path);
      });
    } catch (error) {
      this.discard(staged);
      await this.core.repos.blobs.remove(row.id).catch(() => {});
      throw storageError(error);
    }
    return toFileObject(row);
  }

  /** The file of this account, or 404 (also for another account's id and an expired file). */
  async retrieve(accountId: string, fileId: string): Promise<FileObject> {
    return toFileObject(await this.core.fileRow(accountId, fileId));
  }

  /** A page of the account's files (not expired), optionally of one `purpose`. */
  async list(accountId: string, params: FileListParams = {}): Promise<FilePage> {
    const page = await this.core.repos.files.list(accountId, params, nowSeconds());
    return { ...page, data: page.data.map(toFileObject) };
  }

  /** The file and a stream of its bytes (`GET /v1/files/{id}/content`). */
  async content(accountId: string, fileId: string): Promise<{ file: FileObject; stream: Readable }> {
    const file = await this.retrieve(accountId, fileId);
    return { file, stream: await this.core.repos.blobs.open(fileId) };
  }

  /** Deletes a file, its bytes, and its chunks from every store that holds it (their counts follow). */
  async delete(accountId: string, fileId: string): Promise<FileDeleted> {
    await this.core.fileRow(accountId, fileId);
    await this.core.purgeFile(accountId, fileId);
    return { id: fileId, object: 'file', deleted: true };
  }

  /** Runs `task` with a local path holding the file's bytes (a temporary copy on PostgreSQL, removed after). */
  async withLocalPath<T>(accountId: string, fileId: string, task: (file: FileObject, path: string) => Promise<T>): Promise<T> {
    const file = await this.retrieve(accountId, fileId);
    return this.core.repos.blobs.withLocalPath(fileId, (path) => task(file, path));
  }

  private tmpPath(): string {
    return join(this.tmpDir, `${Date.now()}-${randomBytes(6).toString('hex')}`);
  }
}

/** A full disk or database answers 507 `insufficient_storage` (in OpenAI's error shape) instead of a bare 500. */
function storageError(error: unknown): unknown {
  if (!isStorageFull(error)) return error;
  return new FathomError('The server has no storage space left for this file; try again later.', {
    code: 'insufficient_storage',
    status: 507,
    type: 'server_error',
    cause: error,
  });
}

/** The name a file keeps: the last segment of what the client sent, trimmed, at most 255 characters. */
function fileName(filename: string): string {
  const name = filename.split(/[\\/]/).pop()!.trim();
  if (!name) throw new InvalidRequestError("Invalid 'file': the upload has no filename.", 'file');
  return name.slice(0, 255);
}

/** A file's object: `expires_at` only when it expires (the SDK types it optional, not nullable). */
export function toFileObject(row: FileRow): FileObject {
  return {
    id: row.id,
    object: 'file',
    bytes: row.bytes,
    created_at: row.created_at,
    filename: row.filename,
    purpose: row.purpose as FilePurpose,
    status: 'processed',
    ...(row.expires_at === null || row.expires_at === undefined ? {} : { expires_at: row.expires_at }),
  };
}
