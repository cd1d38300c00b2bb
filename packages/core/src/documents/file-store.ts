import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FathomError, InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import { isStorageFull, type SqlDatabase } from '../storage';
import type { DocumentsRepositories } from './documents-repositories';
import type { FileRow } from './files-repository';
import { validateFileExpiresAfter } from './validate';

/**
 * Largest file Fathom stores or reads inline, in bytes: 25 MB (decimal, as the spec states the
 * `POST /v1/files` limit). Uploads past it answer 413 `file_too_large`; inline `file_data` past it, 400.
 */
export const MAX_FILE_BYTES = 25_000_000;

/** Purposes OpenAI accepts for `POST /v1/files`. */
export const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;

/** A file object exactly as the SDK types it. */
export interface FileObject {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  status: 'processed';
  status_details: null;
}

/** Bytes written to a temporary path, not yet a file: `commit` stores them, `discard` deletes them. */
export interface StagedUpload {
  path: string;
  bytes: number;
}

/** What `commit` needs besides the bytes: the form fields of `POST /v1/files`. */
export interface FileInput {
  filename: string;
  purpose: string;
  /** `{anchor: 'created_at', seconds}`: the file is deleted that long after its creation. */
  expires_after?: unknown;
}

/**
 * Uploaded files: metadata in `files`, bytes in `FileBlobs` (the data dir on SQLite, the database on
 * PostgreSQL). Uploads stream to `<data dir>/files/.tmp/` (a local cache of every node) and become a
 * file only once complete and within the limit. An expired file answers 404 at once; the periodic
 * sweep deletes it.
 */
export class FileStore {
  private readonly tmpDir: string;

  constructor(
    private readonly db: SqlDatabase,
    private readonly repos: DocumentsRepositories,
    dataDir: string,
  ) {
    this.tmpDir = join(dataDir, 'files', '.tmp');
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

  /** Streams an upload to a temporary path. The caller checks size limits, then commits or discards. */
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
  async commit(accountId: string, staged: StagedUpload, input: FileInput): Promise<FileObject> {
    let row: FileRow;
    try {
      const purpose = validatePurpose(input.purpose);
      const filename = validateFilename(input.filename);
      const expires = validateFileExpiresAfter(input.expires_after);
      const createdAt = nowSeconds();
      row = {
        id: newId('file-'),
        account_id: accountId,
        filename,
        purpose,
        bytes: staged.bytes,
        created_at: createdAt,
        expires_at: expires ? createdAt + expires.seconds : null,
      };
    } catch (error) {
      this.discard(staged);
      throw error;
    }
    try {
      await this.db.transaction(async (tx) => {
        await this.repos.files.in(tx).insert(row);
        await this.repos.blobs.in(tx).put(row.id, staged.path);
      });
    } catch (error) {
      this.discard(staged);
      await this.repos.blobs.remove(row.id).catch(() => {});
      throw storageError(error);
    }
    return toFileObject(row);
  }

  /** Creates a file from bytes in memory (embedding apps, the CLI). */
  async create(accountId: string, input: FileInput & { data: Uint8Array }): Promise<FileObject> {
    const path = this.tmpPath();
    try {
      writeFileSync(path, input.data);
    } catch (error) {
      this.discard({ path, bytes: 0 });
      throw storageError(error);
    }
    return this.commit(accountId, { path, bytes: input.data.byteLength }, input);
  }

  /** The file of this account, or 404 (also for another account's id and an expired file). */
  async get(accountId: string, id: string, param: string | null = null): Promise<FileObject> {
    return toFileObject(await this.row(accountId, id, param));
  }

  async row(accountId: string, id: string, param: string | null = null): Promise<FileRow> {
    const row = await this.repos.files.get(accountId, id);
    if (!row || (row.expires_at !== null && row.expires_at <= nowSeconds())) throw new NotFoundError('file', id, param);
    return row;
  }

  async list(accountId: string, query: ListQuery & { purpose?: string }): Promise<ListPage<FileObject>> {
    const page = await this.repos.files.list(accountId, query, nowSeconds());
    return { ...page, data: page.data.map(toFileObject) };
  }

  /** The file and a stream of its bytes. */
  async openContent(accountId: string, id: string): Promise<{ file: FileObject; stream: Readable }> {
    const file = await this.get(accountId, id);
    return { file, stream: await this.repos.blobs.open(id) };
  }

  /** Runs `task` with a local path holding the file's bytes (a temporary copy on PostgreSQL, removed after). */
  async withLocalPath<T>(accountId: string, id: string, task: (file: FileObject, path: string) => Promise<T>): Promise<T> {
    const file = await this.get(accountId, id);
    return this.repos.blobs.withLocalPath(id, (path) => task(file, path));
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

function validatePurpose(purpose: unknown): string {
  if (typeof purpose !== 'string' || !purpose) throw new InvalidRequestError("Missing required parameter: 'purpose'.", 'purpose');
  if (!(FILE_PURPOSES as readonly string[]).includes(purpose)) {
    throw new InvalidRequestError(
      `Invalid value for 'purpose': '${purpose}'. Expected one of ${FILE_PURPOSES.map((p) => `'${p}'`).join(', ')}.`,
      'purpose',
    );
  }
  return purpose;
}

function validateFilename(filename: unknown): string {
  const name = typeof filename === 'string' ? filename.split(/[\\/]/).pop()!.trim() : '';
  if (!name) throw new InvalidRequestError("Invalid 'file': the upload has no filename.", 'file');
  return name.slice(0, 255);
}

export function toFileObject(row: FileRow): FileObject {
  return {
    id: row.id,
    object: 'file',
    bytes: row.bytes,
    created_at: row.created_at,
    expires_at: row.expires_at ?? null,
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed',
    status_details: null,
  };
}
