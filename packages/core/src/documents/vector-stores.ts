import type { Database } from '../db';
import { StatementCache } from './statement-cache';
import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import { validateExpiresAfter, validateMetadata } from './validate';

export interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

/** A vector store object as the SDK types it. */
export interface VectorStoreObject {
  id: string;
  object: 'vector_store';
  created_at: number;
  name: string | null;
  description: string | null;
  usage_bytes: number;
  file_counts: FileCounts;
  status: 'expired' | 'in_progress' | 'completed';
  expires_after: { anchor: 'last_active_at'; days: number } | null;
  expires_at: number | null;
  last_active_at: number;
  metadata: Record<string, string> | null;
}

export interface StoreRow {
  id: string;
  account_id: string;
  name: string | null;
  description: string | null;
  metadata: string | null;
  expires_after_days: number | null;
  embedder: string | null;
  last_active_at: number;
  created_at: number;
}

/** Vector store rows. `file_counts` and `usage_bytes` are computed in SQL from the store's files on every read. */
export class VectorStores {
  private readonly db: Database;
  private readonly sql: StatementCache;
  private readonly countsStatement;

  constructor(db: Database) {
    this.db = db;
    this.sql = new StatementCache(this.db);
    this.countsStatement = db.prepare<[string], { status: string; n: number; bytes: number }>(
      'SELECT status, COUNT(*) AS n, SUM(usage_bytes) AS bytes FROM vector_store_files WHERE store_id = ? GROUP BY status',
    );
  }

  create(accountId: string, body: Record<string, unknown>, embedderId: string): StoreRow {
    if (body.name !== undefined && body.name !== null && typeof body.name !== 'string') {
      throw new InvalidRequestError("Invalid 'name': expected a string.", 'name');
    }
    if (body.description !== undefined && body.description !== null && typeof body.description !== 'string') {
      throw new InvalidRequestError("Invalid 'description': expected a string.", 'description');
    }
    const metadata = validateMetadata(body.metadata);
    const expires = validateExpiresAfter(body.expires_after);
    const now = nowSeconds();
    const row: StoreRow = {
      id: newId('vs_'),
      account_id: accountId,
      name: (body.name as string | undefined) ?? null,
      description: (body.description as string | undefined) ?? null,
      metadata: metadata ? JSON.stringify(metadata) : null,
      expires_after_days: expires?.days ?? null,
      embedder: embedderId,
      last_active_at: now,
      created_at: now,
    };
    this.sql
      .get(
        `INSERT INTO vector_stores (id, account_id, name, description, metadata, expires_after_days, embedder, last_active_at, created_at)
         VALUES (@id, @account_id, @name, @description, @metadata, @expires_after_days, @embedder, @last_active_at, @created_at)`,
      )
      .run(row);
    return row;
  }

  /** The store of this account, or 404 (also for another account's id). */
  row(accountId: string, id: string, param: string | null = null): StoreRow {
    const row = this.sql.get<[string, string], StoreRow>('SELECT * FROM vector_stores WHERE id = ? AND account_id = ?').get(id, accountId);
    if (!row) throw new NotFoundError('vector store', id, param);
    return row;
  }

  update(accountId: string, id: string, body: Record<string, unknown>): StoreRow {
    const row = this.row(accountId, id);
    if ('name' in body && body.name !== null && typeof body.name !== 'string') {
      throw new InvalidRequestError("Invalid 'name': expected a string.", 'name');
    }
    const metadata = 'metadata' in body ? validateMetadata(body.metadata) : undefined;
    const expires = 'expires_after' in body ? validateExpiresAfter(body.expires_after) : undefined;
    const next: StoreRow = {
      ...row,
      name: 'name' in body ? ((body.name as string | null) ?? null) : row.name,
      metadata: metadata === undefined ? row.metadata : metadata ? JSON.stringify(metadata) : null,
      expires_after_days: expires === undefined ? row.expires_after_days : (expires?.days ?? null),
      last_active_at: nowSeconds(),
    };
    this.sql
      .get(
        'UPDATE vector_stores SET name = @name, metadata = @metadata, expires_after_days = @expires_after_days, last_active_at = @last_active_at WHERE id = @id',
      )
      .run(next);
    return next;
  }

  remove(id: string): void {
    this.sql.get('DELETE FROM vector_stores WHERE id = ?').run(id);
  }

  touch(id: string): void {
    this.sql.get('UPDATE vector_stores SET last_active_at = ? WHERE id = ?').run(nowSeconds(), id);
  }

  counts(storeId: string): { counts: FileCounts; usageBytes: number } {
    const counts: FileCounts = { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 };
    let usageBytes = 0;
    for (const { status, n, bytes } of this.countsStatement.all(storeId)) {
      counts[status as keyof FileCounts] = n;
      counts.total += n;
      usageBytes += bytes ?? 0;
    }
    return { counts, usageBytes };
  }

  isExpired(row: StoreRow): boolean {
    return row.expires_after_days !== null && nowSeconds() > row.last_active_at + row.expires_after_days * 86_400;
  }

  toObject(row: StoreRow): VectorStoreObject {
    // One read transaction: counts and usage describe the same moment.
    const { counts, usageBytes } = this.db.transaction(() => this.counts(row.id))();
    return {
      id: row.id,
      object: 'vector_store',
      created_at: row.created_at,
      name: row.name,
      description: row.description,
      usage_bytes: usageBytes,
      file_counts: counts,
      status: this.isExpired(row) ? 'expired' : counts.in_progress > 0 ? 'in_progress' : 'completed',
      expires_after: row.expires_after_days === null ? null : { anchor: 'last_active_at', days: row.expires_after_days },
      expires_at: row.expires_after_days === null ? null : row.last_active_at + row.expires_after_days * 86_400,
      last_active_at: row.last_active_at,
      metadata: row.metadata ? JSON.parse(row.metadata) : {},
    };
  }

  list(accountId: string, query: ListQuery): ListPage<VectorStoreObject> {
    return paginate<StoreRow, VectorStoreObject>(this.db, {
      table: 'vector_stores',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => this.toObject(row),
    });
  }
}
