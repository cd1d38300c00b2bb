import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, type Repository, type SqlClient } from '../storage';

/** A row of `files`: metadata of an uploaded file (the bytes are in `FileBlobs`). */
export interface FileRow {
  id: string;
  account_id: string;
  filename: string;
  purpose: string;
  bytes: number;
  created_at: number;
  /** Seconds since the epoch after which the file is gone; null = kept until deleted. */
  expires_at: number | null;
}

const COLUMNS = 'id, account_id, filename, purpose, bytes, created_at, expires_at';

/** Storage of file metadata. Rules (purposes, names, expiry) live in `FileStore`. */
export interface FilesRepository extends Repository<FilesRepository> {
  insert(row: FileRow): Promise<void>;
  /** The file of this account (expired or not: the caller decides). */
  get(accountId: string, id: string): Promise<FileRow | undefined>;
  /** Name and size of a file of any account (the ingestion queue reads the file it was given). */
  byId(id: string): Promise<FileRow | undefined>;
  /** A page of the account's files not expired at `now` (seconds), optionally of one purpose. */
  list(accountId: string, query: ListQuery & { purpose?: string }, now: number): Promise<ListPage<FileRow>>;
  remove(accountId: string, id: string): Promise<boolean>;
  /** Up to `limit` files of any account whose `expires_at` is at or before `now`, oldest expiry first. */
  expired(now: number, limit: number): Promise<Array<{ id: string; account_id: string }>>;
  /** Ids of every file of every account, oldest first, `limit` after `afterId` (`fathom migrate-data`). */
  idsAfter(afterId: string | null, limit: number): Promise<string[]>;
}

/** The SQL of `files`, the same on SQLite and PostgreSQL. */
export class SqlFilesRepository implements FilesRepository {
  constructor(private readonly db: SqlClient) {}

  async idsAfter(afterId: string | null, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      `SELECT id FROM files WHERE ${afterId === null ? '1 = 1' : 'id > ?'} ORDER BY id LIMIT ?`,
      afterId === null ? [limit] : [afterId, limit],
    );
    return rows.map((row) => row.id);
  }

  in(tx: SqlClient): FilesRepository {
    return new SqlFilesRepository(tx);
  }

  async insert(row: FileRow): Promise<void> {
    await this.db.run(`INSERT INTO files (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      row.id,
      row.account_id,
      row.filename,
      row.purpose,
      row.bytes,
      row.created_at,
      row.expires_at,
    ]);
  }

  get(accountId: string, id: string): Promise<FileRow | undefined> {
    return this.db.get<FileRow>(`SELECT ${COLUMNS} FROM files WHERE id = ? AND account_id = ?`, [id, accountId]);
  }

  byId(id: string): Promise<FileRow | undefined> {
    return this.db.get<FileRow>(`SELECT ${COLUMNS} FROM files WHERE id = ?`, [id]);
  }

  list(accountId: string, query: ListQuery & { purpose?: string }, now: number): Promise<ListPage<FileRow>> {
    const live = '(expires_at IS NULL OR expires_at > ?)';
    return paginate<FileRow, FileRow>(this.db, {
      table: 'files',
      columns: COLUMNS,
      where: query.purpose ? `account_id = ? AND purpose = ? AND ${live}` : `account_id = ? AND ${live}`,
      params: query.purpose ? [accountId, query.purpose, now] : [accountId, now],
      query,
      map: (row) => ({
        id: row.id,
        account_id: row.account_id,
        filename: row.filename,
        purpose: row.purpose,
        bytes: row.bytes,
        created_at: row.created_at,
        expires_at: row.expires_at ?? null,
      }),
    });
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM files WHERE id = ? AND account_id = ?', [id, accountId])).changes > 0;
  }

  expired(now: number, limit: number): Promise<Array<{ id: string; account_id: string }>> {
    return this.db.all<{ id: string; account_id: string }>(
      'SELECT id, account_id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?',
      [now, limit],
    );
  }
}
