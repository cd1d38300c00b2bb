import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import { validateExpiresAfter, validateMetadata } from './validate';
import type { FileCounts, StoreRow, StoreUsage, VectorStoresRepository } from './vector-stores-repository';

export type { FileCounts, StoreRow } from './vector-stores-repository';

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

/** Vector store rules: validation of create/update bodies, ownership, expiry, the object shape. */
export class VectorStores {
  constructor(private readonly repo: VectorStoresRepository) {}

  /** A new store row from a create body (validated; 400 naming the field). Not stored yet. */
  build(accountId: string, body: Record<string, unknown>, embedderId: string): StoreRow {
    if (body.name !== undefined && body.name !== null && typeof body.name !== 'string') {
      throw new InvalidRequestError("Invalid 'name': expected a string.", 'name');
    }
    if (body.description !== undefined && body.description !== null && typeof body.description !== 'string') {
      throw new InvalidRequestError("Invalid 'description': expected a string.", 'description');
    }
    const metadata = validateMetadata(body.metadata);
    const expires = validateExpiresAfter(body.expires_after);
    const now = nowSeconds();
    return {
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
  }

  /** The store of this account, or 404 (also for another account's id). */
  async row(accountId: string, id: string, param: string | null = null): Promise<StoreRow> {
    const row = await this.repo.get(accountId, id);
    if (!row) throw new NotFoundError('vector store', id, param);
    return row;
  }

  async update(accountId: string, id: string, body: Record<string, unknown>): Promise<StoreRow> {
    const row = await this.row(accountId, id);
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
    await this.repo.update(next);
    return next;
  }

  isExpired(row: StoreRow): boolean {
    return row.expires_after_days !== null && nowSeconds() > row.last_active_at + row.expires_after_days * 86_400;
  }

  /** The object of one store, with counts and usage computed now. */
  async toObject(row: StoreRow): Promise<VectorStoreObject> {
    return this.shape(row, (await this.repo.usage([row.id])).get(row.id)!);
  }

  async list(accountId: string, query: ListQuery): Promise<ListPage<VectorStoreObject>> {
    const page = await this.repo.list(accountId, query);
    const usage = await this.repo.usage(page.data.map((row) => row.id));
    return { ...page, data: page.data.map((row) => this.shape(row, usage.get(row.id)!)) };
  }

  private shape(row: StoreRow, { counts, usageBytes }: StoreUsage): VectorStoreObject {
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
}
