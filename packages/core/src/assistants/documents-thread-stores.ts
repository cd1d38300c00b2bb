import { NotFoundError } from '../errors';
import type { ThreadStores } from './thread-stores';
import { THREAD_STORE_EXPIRY_DAYS } from './thread-attachments';

type MaybePromise<T> = T | Promise<T>;

/** The part of the documents capability `threadStoresOf` uses (structurally: the class is not imported). */
export interface DocumentsForThreads {
  getStore(accountId: string, storeId: string): MaybePromise<unknown>;
  getFile(accountId: string, fileId: string): MaybePromise<unknown>;
  getStoreFile(accountId: string, storeId: string, fileId: string): MaybePromise<unknown>;
  createStore(accountId: string, body: Record<string, unknown>): MaybePromise<{ id: string }>;
  addStoreFile(accountId: string, storeId: string, body: { file_id: string }): MaybePromise<unknown>;
}

/** Answers `fallback` when `read` fails with a NotFoundError; rethrows anything else. */
async function unlessMissing<T>(read: () => MaybePromise<unknown>, fallback: T): Promise<T | undefined> {
  try {
    await read();
    return undefined;
  } catch (error) {
    if (error instanceof NotFoundError) return fallback;
    throw error;
  }
}

/**
 * `ThreadStores` over the documents capability: ids of other accounts answer 404 exactly like unknown
 * ids; thread stores expire 7 days after their last use, and files already in the store stay as they are.
 */
export function threadStoresOf(documents: DocumentsForThreads): ThreadStores {
  return {
    async checkStores(accountId, storeIds, param) {
      for (const id of storeIds) {
        if (await unlessMissing(() => documents.getStore(accountId, id), true)) throw new NotFoundError('vector store', id, param);
      }
    },
    async checkFiles(accountId, fileIds, param) {
      for (const id of fileIds) {
        if (await unlessMissing(() => documents.getFile(accountId, id), true)) throw new NotFoundError('file', id, param);
      }
    },
    async createStore(accountId, input) {
      const store = await documents.createStore(accountId, {
        name: input.name,
        file_ids: [...input.fileIds],
        expires_after: { anchor: 'last_active_at', days: THREAD_STORE_EXPIRY_DAYS },
      });
      return store.id;
    },
    async addFiles(accountId, storeId, fileIds) {
      for (const fileId of fileIds) {
        if (await unlessMissing(() => documents.getStoreFile(accountId, storeId, fileId), true)) {
          await documents.addStoreFile(accountId, storeId, { file_id: fileId });
        }
      }
    },
  };
}
