import { NotFoundError } from '../errors';
import { inTransaction } from './documents-repositories';
import type { DocumentsCore } from './documents-core';
import { prepareFiles } from './files-to-add';
import { mergeChunks } from './merge-chunks';
import type { StoreFileRow } from './store-files-repository';
import type {
  VectorStoreFile,
  VectorStoreFileContentPage,
  VectorStoreFileCreateParams,
  VectorStoreFileDeleted,
  VectorStoreFileListParams,
  VectorStoreFilePage,
  VectorStoreFileUpdateParams,
} from './wire/vector-store-files';

/** How long `poll` waits by default before answering the file as it is: 10 minutes. */
const POLL_TIMEOUT_MS = 600_000;

/**
 * The files of a vector store (`fathom.vectorStores.files`, OpenAI's `vectorStores.files`): adding a
 * file queues its ingestion (extract, chunk, embed, index) in the background; its `status` says when it
 * is searchable (`completed`). The store is checked first: another account's store answers 404.
 */
export class VectorStoreFiles {
  constructor(private readonly core: DocumentsCore) {}

  /** Adds one file to a store; ingestion starts in the background. Re-adding re-ingests with the new options. */
  async create(accountId: string, storeId: string, params: VectorStoreFileCreateParams): Promise<VectorStoreFile> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    const [prepared] = await prepareFiles([params], 'file_id', core.embedder.maxInputTokens, (id, param) =>
      core.fileRow(accountId, id, param),
    );
    core.queue.abort(storeId, prepared!.fileId);
    const [row] = await core.db.transaction((tx) => core.enqueue(inTransaction(core.repos, tx), accountId, storeId, [prepared!]));
    core.queue.wake();
    return toVectorStoreFile((await core.repos.storeFiles.find(storeId, row!.file_id)) ?? row!);
  }

  /** Adds a file and waits until it is ingested (or `timeoutMs`, default 10 minutes, passed). */
  async createAndPoll(
    accountId: string,
    storeId: string,
    params: VectorStoreFileCreateParams,
    options: { timeoutMs?: number } = {},
  ): Promise<VectorStoreFile> {
    const file = await this.create(accountId, storeId, params);
    return this.poll(accountId, storeId, file.id, options);
  }

  async retrieve(accountId: string, storeId: string, fileId: string): Promise<VectorStoreFile> {
    await this.core.storeRow(accountId, storeId);
    return toVectorStoreFile(await this.core.storeFileRow(storeId, fileId));
  }

  /** The file once it is no longer `in_progress`, or as it is after `timeoutMs` (default 10 minutes). */
  async poll(accountId: string, storeId: string, fileId: string, options: { timeoutMs?: number } = {}): Promise<VectorStoreFile> {
    await this.retrieve(accountId, storeId, fileId);
    await this.core.waitUntil(
      async () => (await this.core.repos.storeFiles.find(storeId, fileId))?.status !== 'in_progress',
      options.timeoutMs ?? POLL_TIMEOUT_MS,
    );
    return this.retrieve(accountId, storeId, fileId);
  }

  /** A page of a store's files, optionally of one status (`filter`). */
  async list(accountId: string, storeId: string, params: VectorStoreFileListParams = {}): Promise<VectorStoreFilePage> {
    await this.core.storeRow(accountId, storeId);
    const page = await this.core.repos.storeFiles.list(storeId, params);
    return { ...page, data: page.data.map(toVectorStoreFile) };
  }

  /** Replaces a file's attributes (what search filters compare), also while it is still being ingested. */
  async update(accountId: string, storeId: string, fileId: string, params: VectorStoreFileUpdateParams): Promise<VectorStoreFile> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    await core.storeFileRow(storeId, fileId);
    await core.repos.storeFiles.setAttributes(storeId, fileId, params.attributes);
    await core.index.setAttributes(storeId, fileId, params.attributes);
    return toVectorStoreFile(await core.storeFileRow(storeId, fileId));
  }

  /** Removes a file from a store (the file itself stays). */
  async delete(accountId: string, storeId: string, fileId: string): Promise<VectorStoreFileDeleted> {
    const { core } = this;
    await core.storeRow(accountId, storeId);
    await core.storeFileRow(storeId, fileId);
    const requestedAt = Date.now();
    await core.db.transaction(async (tx) => {
      const repos = inTransaction(core.repos, tx);
      if (!(await repos.storeFiles.remove(storeId, fileId))) throw new NotFoundError('file', fileId);
      await repos.storeFiles.requestRemoval(storeId, fileId, requestedAt);
    });
    core.queue.abort(storeId, fileId);
    await core.removeFromIndex(storeId, fileId, requestedAt);
    return { id: fileId, object: 'vector_store.file.deleted', deleted: true };
  }

  /** The parsed text of a file, rebuilt from its chunks (one page; empty until the file is completed). */
  async content(accountId: string, storeId: string, fileId: string): Promise<VectorStoreFileContentPage> {
    await this.core.storeRow(accountId, storeId);
    await this.core.storeFileRow(storeId, fileId);
    const chunks = await this.core.index.fileChunks(storeId, fileId);
    const data = chunks.length ? [{ type: 'text' as const, text: mergeChunks(chunks) }] : [];
    return { object: 'vector_store.file_content.page', data, has_more: false, next_page: null };
  }

  /** Progress of some files of a store: files done and failed, chunks indexed so far (the CLI's progress bar). */
  async progress(
    accountId: string,
    storeId: string,
    fileIds: readonly string[],
  ): Promise<{ done: number; failed: number; chunks: number; total: number }> {
    await this.core.storeRow(accountId, storeId);
    const out = { done: 0, failed: 0, chunks: 0, total: fileIds.length };
    for (const row of await this.core.repos.storeFiles.statuses(storeId, fileIds)) {
      if (row.status === 'in_progress') continue;
      out.done++;
      if (row.status !== 'completed') out.failed++;
      out.chunks += Number(row.chunk_count);
    }
    return out;
  }
}

/** A store file's object as the SDK types it. */
export function toVectorStoreFile(row: StoreFileRow): VectorStoreFile {
  return {
    id: row.file_id,
    object: 'vector_store.file',
    usage_bytes: row.usage_bytes,
    created_at: row.created_at,
    vector_store_id: row.store_id,
    status: row.status,
    last_error: row.last_error_code
      ? { code: row.last_error_code as NonNullable<VectorStoreFile['last_error']>['code'], message: row.last_error_message ?? '' }
      : null,
    chunking_strategy: {
      type: 'static',
      static: { max_chunk_size_tokens: row.chunk_max_tokens, chunk_overlap_tokens: row.chunk_overlap_tokens },
    },
    attributes: row.attributes ? JSON.parse(row.attributes) : {},
  };
}
