import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Repository, SqlClient } from '../storage';

/** Bytes per row of `file_blobs`: a 25 MB upload is 25 inserts, none with a huge parameter. */
export const BLOB_PART_BYTES = 1 << 20;

/**
 * Where the bytes of uploaded files live: a small seam so the metadata (`FilesRepository`) stays the
 * same on both backends. SQLite keeps them as files under `<data dir>/files`; PostgreSQL keeps them in
 * the database (`file_blobs`), so every node of a cluster reads every file.
 */
export interface FileBlobs extends Repository<FileBlobs> {
  /** Stores the bytes at `path` (a staged upload on local disk) as file `id`. `path` is consumed (moved or deleted). */
  put(id: string, path: string): Promise<void>;
  /** The bytes as a stream, read in bounded parts. */
  open(id: string): Promise<Readable>;
  /** Runs `task` with a local path holding the bytes: the stored file itself, or a temporary copy removed afterwards. */
  withLocalPath<T>(id: string, task: (path: string) => Promise<T>): Promise<T>;
  /** Deletes the bytes (no-op when absent). */
  remove(id: string): Promise<void>;
  /** Whether the bytes of file `id` are stored. */
  has(id: string): Promise<boolean>;
}

/** Bytes as files under `<data dir>/files/<id>` (SQLite backend). */
export class DiskFileBlobs implements FileBlobs {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  in(_tx: SqlClient): FileBlobs {
    return this;
  }

  async put(id: string, path: string): Promise<void> {
    renameSync(path, this.path(id));
  }

  async open(id: string): Promise<Readable> {
    const path = this.path(id);
    await access(path);
    return createReadStream(path);
  }

  withLocalPath<T>(id: string, task: (path: string) => Promise<T>): Promise<T> {
    return task(this.path(id));
  }

  async remove(id: string): Promise<void> {
    rmSync(this.path(id), { force: true });
  }

  async has(id: string): Promise<boolean> {
    return access(this.path(id)).then(
      () => true,
      () => false,
    );
  }

  private path(id: string): string {
    return join(this.dir, id);
  }
}

/**
 * Bytes in the database (PostgreSQL backend): `file_blobs(file_id, part, data)`, `BLOB_PART_BYTES` per
 * row, written in the caller's transaction together with the file's row, read back part by part.
 */
export class SqlFileBlobs implements FileBlobs {
  constructor(
    private readonly db: SqlClient,
    /** Local directory for the temporary copies ingestion reads. */
    private readonly tmpDir: string,
  ) {
    mkdirSync(tmpDir, { recursive: true });
  }

  in(tx: SqlClient): FileBlobs {
    return new SqlFileBlobs(tx, this.tmpDir);
  }

  async put(id: string, path: string): Promise<void> {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(BLOB_PART_BYTES);
      for (let part = 0; ; part++) {
        const { bytesRead } = await handle.read(buffer, 0, BLOB_PART_BYTES, null);
        if (bytesRead === 0 && part > 0) break;
        await this.db.run('INSERT INTO file_blobs (file_id, part, data) VALUES (?, ?, ?)', [
          id,
          part,
          Buffer.from(buffer.subarray(0, bytesRead)),
        ]);
        if (bytesRead < BLOB_PART_BYTES) break;
      }
    } finally {
      await handle.close();
    }
    rmSync(path, { force: true });
  }

  async open(id: string): Promise<Readable> {
    const first = await this.part(id, 0);
    if (!first) throw Object.assign(new Error(`no bytes stored for ${id}`), { code: 'ENOENT' });
    const parts = async function* (this: SqlFileBlobs) {
      let data: Buffer | undefined = first;
      for (let part = 1; data; part++) {
        if (data.length) yield data;
        if (data.length < BLOB_PART_BYTES) return;
        data = await this.part(id, part);
      }
    }.call(this);
    return Readable.from(parts, { objectMode: false });
  }

  async withLocalPath<T>(id: string, task: (path: string) => Promise<T>): Promise<T> {
    const path = join(this.tmpDir, `${id}-${randomBytes(6).toString('hex')}`);
    try {
      await pipeline(await this.open(id), createWriteStream(path));
      return await task(path);
    } finally {
      rmSync(path, { force: true });
    }
  }

  async remove(id: string): Promise<void> {
    await this.db.run('DELETE FROM file_blobs WHERE file_id = ?', [id]);
  }

  async has(id: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM file_blobs WHERE file_id = ? LIMIT 1', [id])) !== undefined;
  }

  private async part(id: string, part: number): Promise<Buffer | undefined> {
    const row = await this.db.get<{ data: Buffer }>('SELECT data FROM file_blobs WHERE file_id = ? AND part = ?', [id, part]);
    return row?.data;
  }
}
