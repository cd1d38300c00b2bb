import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  readdirSync,
  rmSync,
  renameSync,
  statSync,
  writeFileSync,
  type ReadStream,
} from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db';
import { StatementCache } from './statement-cache';
import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';

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

interface FileRow {
  id: string;
  account_id: string;
  filename: string;
  purpose: string;
  bytes: number;
  created_at: number;
}

/** Bytes written to a temporary path, not yet a file: `commit` renames them into place, `discard` deletes them. */
export interface StagedUpload {
  path: string;
  bytes: number;
}

/** Uploaded files: metadata in SQLite, bytes under `<dataDir>/files/<id>` (written to a temp path, renamed on success). */
export class FileStore {
  private readonly db: Database;
  private readonly sql: StatementCache;
  private readonly dir: string;
  private readonly tmpDir: string;

  constructor(options: { db: Database; dataDir: string }) {
    this.db = options.db;
    this.sql = new StatementCache(this.db);
    this.dir = join(options.dataDir, 'files');
    this.tmpDir = join(options.dataDir, 'files', '.tmp');
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
    const path = join(this.tmpDir, `${Date.now()}-${randomBytes(6).toString('hex')}`);
    let bytes = 0;
    source.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    try {
      await pipeline(source, createWriteStream(path));
    } catch (error) {
      this.discard({ path, bytes });
      throw error;
    }
    return { path, bytes };
  }

  discard(staged: StagedUpload): void {
    rmSync(staged.path, { force: true });
  }

  /** Turns staged bytes into a file of the account. */
  commit(accountId: string, staged: StagedUpload, input: { filename: string; purpose: string }): FileObject {
    const purpose = validatePurpose(input.purpose);
    const filename = validateFilename(input.filename);
    const row: FileRow = { id: newId('file-'), account_id: accountId, filename, purpose, bytes: staged.bytes, created_at: nowSeconds() };
    renameSync(staged.path, this.path(row.id));
    this.sql
      .get('INSERT INTO files (id, account_id, filename, purpose, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(row.id, row.account_id, row.filename, row.purpose, row.bytes, row.created_at);
    return toFileObject(row);
  }

  /** Creates a file from bytes in memory (embedding apps, the CLI). */
  create(accountId: string, input: { filename: string; purpose: string; data: Uint8Array }): FileObject {
    validatePurpose(input.purpose);
    const path = join(this.tmpDir, `${Date.now()}-${randomBytes(6).toString('hex')}`);
    writeFileSync(path, input.data);
    return this.commit(accountId, { path, bytes: input.data.byteLength }, input);
  }

  /** The file of this account, or 404 (also for another account's id). */
  get(accountId: string, id: string, param: string | null = null): FileObject {
    return toFileObject(this.row(accountId, id, param));
  }

  row(accountId: string, id: string, param: string | null = null): FileRow {
    const row = this.sql.get<[string, string], FileRow>('SELECT * FROM files WHERE id = ? AND account_id = ?').get(id, accountId);
    if (!row) throw new NotFoundError('file', id, param);
    return row;
  }

  list(accountId: string, query: ListQuery & { purpose?: string }): ListPage<FileObject> {
    const where = query.purpose ? 'account_id = ? AND purpose = ?' : 'account_id = ?';
    const params = query.purpose ? [accountId, query.purpose] : [accountId];
    return paginate<FileRow, FileObject>(this.db, { table: 'files', where, params, query, map: toFileObject });
  }

  /** Removes the row and the bytes. Store membership is cleaned by `Documents.deleteFile`. */
  remove(accountId: string, id: string): void {
    this.row(accountId, id);
    this.sql.get('DELETE FROM files WHERE id = ? AND account_id = ?').run(id, accountId);
    rmSync(this.path(id), { force: true });
  }

  path(id: string): string {
    return join(this.dir, id);
  }

  openContent(accountId: string, id: string): { file: FileObject; stream: ReadStream } {
    const file = this.get(accountId, id);
    return { file, stream: createReadStream(this.path(id)) };
  }
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
    expires_at: null,
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed',
    status_details: null,
  };
}
