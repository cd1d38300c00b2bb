import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import type { StoreRow, StoreUsage, VectorStoresRepository } from './vector-stores-repository';
import type { VectorStore, VectorStoreCreateParams, VectorStoreUpdateParams } from './wire/vector-stores';

export type { FileCounts, StoreRow } from './vector-stores-repository';

/** A vector store object as the SDK types it. */
export type VectorStoreObject = VectorStore;

/** Vector store rules: validation of create/update bodies, ownership, expiry, the object shape. */
export class VectorStores {
  constructor(private readonly repo: VectorStoresRepository) {}

  /** A new store row from create params. Not stored yet. */
  build(accountId: string, params: VectorStoreCreateParams, embedderId: string): StoreRow {
    const now = nowSeconds();
    return {
      id: newId('vs_'),
      account_id: accountId,
      name: params.name ?? null,
      description: params.description ?? null,
      metadata: params.metadata ? JSON.stringify(params.metadata) : null,
      expires_after_days: params.expires_after?.days ?? null,
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

  /** Applies update params: a field present (`null` included) replaces the stored value, an absent one keeps it. */
  async update(accountId: string, id: string, params: VectorStoreUpdateParams): Promise<StoreRow> {
    const row = await this.row(accountId, id);
    const next: StoreRow = {
      ...row,
      name: params.name !== undefined ? params.name : row.name,
      metadata: params.metadata !== undefined ? (params.metadata ? JSON.stringify(params.metadata) : null) : row.metadata,
      expires_after_days: params.expires_after !== undefined ? (params.expires_after?.days ?? null) : row.expires_after_days,
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
      ...(row.expires_after_days === null ? {} : { expires_after: { anchor: 'last_active_at' as const, days: row.expires_after_days } }),
      expires_at: row.expires_after_days === null ? null : row.last_active_at + row.expires_after_days * 86_400,
      last_active_at: row.last_active_at,
      metadata: row.metadata ? JSON.parse(row.metadata) : {},
    };
  }
}
