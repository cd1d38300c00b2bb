import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { inTransaction } from './documents-repositories';
import type { DocumentsCore } from './documents-core';
import type { BatchRow } from './file-batches-repository';
import { batchEntries, prepareFiles } from './files-to-add';
import { toVectorStoreFile } from './vector-store-files';
import type { FileCounts } from './vector-stores-repository';
import type { FileBatchCreateParams, FileBatchListFilesParams, VectorStoreFileBatch } from './wire/file-batches';
import type { VectorStoreFilePage } from './wire/vector-store-files';

/** How long `poll` waits by default before answering the batch as it is: 10 minutes. */
const POLL_TIMEOUT_MS = 600_000;

/**
 * File batches of a vector store (`fathom.vectorStores.fileBatches`, OpenAI's `vectorStores.fileBatches`):
 * many files added at once, with their progress counted together.
 */
export class VectorStoreFileBatches {
  constructor(private readonly core: DocumentsCore) {}

  /** Adds many files at once: `file_ids` (with shared `attributes`/`chunking_strategy`) or `files[]`, 1..2000. */
  async create(accountId: string, storeId: string, params: FileBatchCreateParams): Promise<VectorStoreFileBatch> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    const { entries, param } = batchEntries(params);
    const prepared = await prepareFiles(entries, param, core.embedder.maxInputTokens, (id, where) => core.fileRow(accountId, id, where));
    for (const file of prepared) core.queue.abort(storeId, file.fileId);
    const batch: BatchRow = { id: newId('vsfb_'), store_id: storeId, account_id: accountId, cancelled: 0, created_at: nowSeconds() };
    await core.db.transaction(async (tx) => {
      const repos = inTransaction(core.repos, tx);
      await repos.batches.insert(
        batch,
        prepared.map((file) => file.fileId),
      );
      await core.enqueue(repos, accountId, storeId, prepared);
    });
    core.queue.wake();
    return toFileBatch(batch, await core.repos.storeFiles.batchCounts(storeId, batch.id));
  }

  /** Adds many files and waits until they are all ingested (or `timeoutMs`, default 10 minutes, passed). */
  async createAndPoll(
    accountId: string,
    storeId: string,
    params: FileBatchCreateParams,
    options: { timeoutMs?: number } = {},
  ): Promise<VectorStoreFileBatch> {
    const batch = await this.create(accountId, storeId, params);
    return this.poll(accountId, storeId, batch.id, options);
  }

  async retrieve(accountId: string, storeId: string, batchId: string): Promise<VectorStoreFileBatch> {
    await this.core.storeRow(accountId, storeId);
    const batch = await this.row(storeId, batchId);
    return toFileBatch(batch, await this.core.repos.storeFiles.batchCounts(storeId, batchId));
  }

  /** The batch once none of its files is `in_progress`, or as it is after `timeoutMs` (default 10 minutes). */
  async poll(accountId: string, storeId: string, batchId: string, options: { timeoutMs?: number } = {}): Promise<VectorStoreFileBatch> {
    await this.retrieve(accountId, storeId, batchId);
    await this.core.waitUntil(
      async () => (await this.core.repos.storeFiles.batchCounts(storeId, batchId)).in_progress === 0,
      options.timeoutMs ?? POLL_TIMEOUT_MS,
    );
    return this.retrieve(accountId, storeId, batchId);
  }

  /** Cancels a batch: its files still `in_progress` end `cancelled` (their partial work is discarded). */
  async cancel(accountId: string, storeId: string, batchId: string): Promise<VectorStoreFileBatch> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    const batch = await this.row(storeId, batchId);
    const requestedAt = Date.now();
    const cancelled = await core.db.transaction(async (tx) => {
      const repos = inTransaction(core.repos, tx);
      await repos.batches.markCancelled(batchId);
      const fileIds = await repos.storeFiles.cancelBatch(batchId, storeId);
      for (const fileId of fileIds) await repos.storeFiles.requestRemoval(storeId, fileId, requestedAt);
      return fileIds;
    });
    for (const fileId of cancelled) core.queue.abort(storeId, fileId);
    for (const fileId of cancelled) await core.removeFromIndex(storeId, fileId, requestedAt);
    return toFileBatch({ ...batch, cancelled: 1 }, await core.repos.storeFiles.batchCounts(storeId, batchId));
  }

  /** A page of the batch's files, optionally of one status (`filter`). */
  async listFiles(
    accountId: string,
    storeId: string,
    batchId: string,
    params: FileBatchListFilesParams = {},
  ): Promise<VectorStoreFilePage> {
    await this.core.storeRow(accountId, storeId);
    await this.row(storeId, batchId);
    const page = await this.core.repos.storeFiles.list(storeId, params, batchId);
    return { ...page, data: page.data.map(toVectorStoreFile) };
  }

  private async row(storeId: string, batchId: string): Promise<BatchRow> {
    const row = await this.core.repos.batches.get(storeId, batchId);
    if (!row) throw new NotFoundError('file batch', batchId);
    return row;
  }
}

/**
 * A batch's object from its row and its files' counts. Status: `cancelled` after cancel, else
 * `in_progress` while any file is, `failed` when every file failed, else `completed`.
 */
function toFileBatch(row: BatchRow, counts: FileCounts): VectorStoreFileBatch {
  const status: VectorStoreFileBatch['status'] = row.cancelled
    ? 'cancelled'
    : counts.in_progress > 0
      ? 'in_progress'
      : counts.total > 0 && counts.failed === counts.total
        ? 'failed'
        : 'completed';
  return {
    id: row.id,
    object: 'vector_store.files_batch',
    created_at: row.created_at,
    vector_store_id: row.store_id,
    status,
    file_counts: counts,
  };
}
