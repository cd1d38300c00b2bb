import { NotFoundError } from '../errors';
import type { ThreadStores } from './thread-stores';
import { THREAD_STORE_EXPIRY_DAYS } from './thread-attachments';

type MaybePromise<T> = T | Promise<T>;

/**
 * The part of the documents capability `threadStoresOf` uses: `fathom.files` and `fathom.vectorStores`
 * (structurally: the classes are not imported).
 */
export interface DocumentsForThreads {
  files: { retrieve(accountId: string, fileId: string): MaybePromise<unknown> };
  vectorStores: {
    retrieve(accountId: string, storeId: string): MaybePromise<unknown>;
    create(
      accountId: string,
      params: { name: string; file_ids: string[]; expires_after: { anchor: 'last_active_at'; days: number } },
    ): MaybePromise<{ id: string }>;
    files: {
      retrieve(accountId: string, storeId: string, fileId: string): MaybePromise<unknown>;
      create(accountId: string, storeId: string, params: { file_id: string }): MaybePromise<unknown>;
    };
  };
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
        if (await unlessMissing(() => documents.vectorStores.retrieve(accountId, id), true))
          throw new NotFoundError('vector store', id, param);
      }
    },
    async checkFiles(accountId, fileIds, param) {
      for (const id of fileIds) {
        if (await unlessMissing(() => documents.files.retrieve(accountId, id), true)) throw new NotFoundError('file', id, param);
      }
    },
    async createStore(accountId, input) {
      const store = await documents.vectorStores.create(accountId, {
        name: input.name,
        file_ids: [...input.fileIds],
        expires_after: { anchor: 'last_active_at', days: THREAD_STORE_EXPIRY_DAYS },
      });
      return store.id;
    },
    async addFiles(accountId, storeId, fileIds) {
      for (const fileId of fileIds) {
        if (await unlessMissing(() => documents.vectorStores.files.retrieve(accountId, storeId, fileId), true)) {
          await documents.vectorStores.files.create(accountId, storeId, { file_id: fileId });
        }
      }
    },
  };
}
