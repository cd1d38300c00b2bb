import { newId, nowSeconds } from '../internal/ids';
import { resolveChunking } from './chunking';
import { inTransaction } from './documents-repositories';
import type { DocumentsCore } from './documents-core';
import type { StoreSearch } from './store-search';
import { VectorStoreFileBatches } from './vector-store-file-batches';
import { VectorStoreFiles } from './vector-store-files';
import type { StoreRow, StoreUsage } from './vector-stores-repository';
import type { VectorStoreSearchPage, VectorStoreSearchParams } from './wire/search';
import type {
  VectorStore,
  VectorStoreCreateParams,
  VectorStoreDeleted,
  VectorStoreListParams,
  VectorStorePage,
  VectorStoreUpdateParams,
} from './wire/vector-stores';

/**
 * Vector stores (`fathom.vectorStores`, OpenAI's `vectorStores`) with their `files`, `fileBatches` and
 * `search`. A store's counts and usage are computed from its files on every read; a store expires
 * `expires_after.days` after it was last active (a search or an update makes it active).
 */
export class VectorStores {
  readonly files: VectorStoreFiles;
  readonly fileBatches: VectorStoreFileBatches;

  constructor(
    private readonly core: DocumentsCore,
    private readonly searching: StoreSearch,
  ) {
    this.files = new VectorStoreFiles(core);
    this.fileBatches = new VectorStoreFileBatches(core);
  }

  /** Creates a store; `file_ids` (at most 500) are added with `chunking_strategy` and ingested in the background. */
  async create(accountId: string, params: VectorStoreCreateParams): Promise<VectorStore> {
    const { core } = this;
    const fileIds = [...new Set(params.file_ids ?? [])];
    const chunking = resolveChunking(params.chunking_strategy, core.embedder.maxInputTokens);
    for (const id of fileIds) await core.fileRow(accountId, id, 'file_ids');
    const now = nowSeconds();
    const row: StoreRow = {
      id: newId('vs_'),
      account_id: accountId,
      name: params.name ?? null,
      description: params.description ?? null,
      metadata: params.metadata ? JSON.stringify(params.metadata) : null,
      expires_after_days: params.expires_after?.days ?? null,
      embedder: core.embedder.id,
      last_active_at: now,
      created_at: now,
    };
    await core.db.transaction(async (tx) => {
      const repos = inTransaction(core.repos, tx);
      await repos.stores.insert(row);
      await core.enqueue(
        repos,
        accountId,
        row.id,
        fileIds.map((fileId) => ({ fileId, attributes: null, chunking })),
      );
    });
    core.queue.wake();
    return this.toObject(row);
  }

  async retrieve(accountId: string, storeId: string): Promise<VectorStore> {
    return this.toObject(await this.core.storeRow(accountId, storeId));
  }

  /** Applies update params: a field present (`null` included) replaces the stored value, an absent one keeps it. */
  async update(accountId: string, storeId: string, params: VectorStoreUpdateParams): Promise<VectorStore> {
    const row = await this.core.storeRow(accountId, storeId);
    const next: StoreRow = {
      ...row,
      name: params.name !== undefined ? params.name : row.name,
      metadata: params.metadata !== undefined ? (params.metadata ? JSON.stringify(params.metadata) : null) : row.metadata,
      expires_after_days: params.expires_after !== undefined ? (params.expires_after?.days ?? null) : row.expires_after_days,
      last_active_at: nowSeconds(),
    };
    await this.core.repos.stores.update(next);
    return this.toObject(next);
  }

  async list(accountId: string, params: VectorStoreListParams = {}): Promise<VectorStorePage> {
    const page = await this.core.repos.stores.list(accountId, params);
    const usage = await this.core.repos.stores.usage(page.data.map((row) => row.id));
    return { ...page, data: page.data.map((row) => this.shape(row, usage.get(row.id)!)) };
  }

  /** Deletes a store and its chunks; its files stay. */
  async delete(accountId: string, storeId: string): Promise<VectorStoreDeleted> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    const running = await core.repos.storeFiles.inProgress(storeId);
    await core.repos.stores.remove(storeId);
    for (const fileId of running) core.queue.abort(storeId, fileId);
    // The store is gone (no search can name it); chunks a failed removal leaves are unreachable garbage.
    await core.index.removeStore(storeId).catch((error: Error) => {
      core.log.error(`could not remove the chunks of deleted vector store ${storeId}: ${error.message}`);
    });
    return { id: storeId, object: 'vector_store.deleted', deleted: true };
  }

  /**
   * Hybrid search of one store (`POST /v1/vector_stores/{id}/search`): the queries searched (rewritten
   * first with `rewrite_query`) and the best passages, each with a score in 0..1.
   */
  async search(accountId: string, storeId: string, params: VectorStoreSearchParams): Promise<VectorStoreSearchPage> {
    const { search_query, data } = await this.searching.run(accountId, [storeId], {
      query: params.query,
      maxNumResults: params.max_num_results ?? 10,
      filters: params.filters ?? undefined,
      scoreThreshold: params.ranking_options?.score_threshold,
      ranker: params.ranking_options?.ranker,
      rewriteQuery: params.rewrite_query === true,
    });
    return { object: 'vector_store.search_results.page', search_query, data, has_more: false, next_page: null };
  }

  /** Stores of the account whose id or name is `idOrName`, oldest first (CLI: `fathom ingest --store`, `fathom search`). */
  async find(accountId: string, idOrName: string): Promise<VectorStore[]> {
    const rows = await this.core.repos.stores.findByIdOrName(accountId, idOrName);
    return Promise.all(rows.map((row) => this.toObject(row)));
  }

  /** Ids of the stores of any account whose id or name is `idOrName`, oldest first (operator CLI: `fathom reindex`). */
  idsNamed(idOrName: string): Promise<string[]> {
    return this.core.repos.stores.idsNamed(idOrName);
  }

  /** The object of one store, with counts and usage computed now. */
  private async toObject(row: StoreRow): Promise<VectorStore> {
    return this.shape(row, (await this.core.repos.stores.usage([row.id])).get(row.id)!);
  }

  /** A store's object as the SDK types it (`expires_after` only when set). */
  private shape(row: StoreRow, { counts, usageBytes }: StoreUsage): VectorStore {
    return {
      id: row.id,
      object: 'vector_store',
      created_at: row.created_at,
      name: row.name,
      description: row.description,
      usage_bytes: usageBytes,
      file_counts: counts,
      status: this.core.isExpired(row) ? 'expired' : counts.in_progress > 0 ? 'in_progress' : 'completed',
      ...(row.expires_after_days === null ? {} : { expires_after: { anchor: 'last_active_at' as const, days: row.expires_after_days } }),
      expires_at: row.expires_after_days === null ? null : row.last_active_at + row.expires_after_days * 86_400,
      last_active_at: row.last_active_at,
      metadata: row.metadata ? JSON.parse(row.metadata) : {},
    };
  }
}
