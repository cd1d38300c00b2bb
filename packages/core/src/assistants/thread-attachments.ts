import { NotFoundError } from '../errors';
import { fileSearchAttachments } from './thread-input';
import type { ThreadStores } from './thread-stores';
import type { ThreadsRepository } from './threads-repository';
import type { Message, Thread, ToolResources } from './types';

/** How long a vector store created for a thread's attachments lives after its last use, as OpenAI's thread stores. */
export const THREAD_STORE_EXPIRY_DAYS = 7;

/** Checks that the stores of `resources` are the account's: 404 naming `<param>.file_search.vector_store_ids`, like an unknown id. */
export async function checkToolResources(
  stores: ThreadStores | undefined,
  accountId: string,
  resources: ToolResources | null | undefined,
  param: string,
): Promise<void> {
  const ids = resources?.file_search?.vector_store_ids ?? [];
  if (stores && ids.length > 0) await stores.checkStores(accountId, ids, `${param}.file_search.vector_store_ids`);
}

/** Checks that every attached file is the account's: 404 naming `<prefix>attachments[i].file_id`. */
export async function checkAttachments(
  stores: ThreadStores | undefined,
  accountId: string,
  message: Message,
  prefix: string,
): Promise<void> {
  if (!stores) return;
  for (const [index, attachment] of (message.attachments ?? []).entries()) {
    if (attachment.file_id) await stores.checkFiles(accountId, [attachment.file_id], `${prefix}attachments[${index}].file_id`);
  }
}

function storeOf(thread: Thread): string | undefined {
  return thread.tool_resources?.file_search?.vector_store_ids?.[0];
}

function withStore(thread: Thread, storeId: string): Thread {
  const ids = thread.tool_resources?.file_search?.vector_store_ids ?? [];
  return { ...thread, tool_resources: { ...thread.tool_resources, file_search: { vector_store_ids: [...ids, storeId] } } };
}

async function createThreadStore(stores: ThreadStores, accountId: string, threadId: string, fileIds: readonly string[]): Promise<string> {
  return stores.createStore(accountId, { name: `Files attached to ${threadId}`, fileIds });
}

/**
 * Files attached for `file_search` go into the thread's vector store, as OpenAI does: its first store,
 * or one created for it on demand. For a thread not saved yet, this fills in its `tool_resources`.
 */
export async function attachToNewThread(
  stores: ThreadStores | undefined,
  accountId: string,
  thread: Thread,
  fileIds: string[],
): Promise<Thread> {
  if (!stores || fileIds.length === 0) return thread;
  const existing = storeOf(thread);
  if (existing) {
    await stores.addFiles(accountId, existing, fileIds);
    return thread;
  }
  return withStore(thread, await createThreadStore(stores, accountId, thread.id, fileIds));
}

/**
 * The same for a saved thread. The store a new one gets is recorded with a compare-and-set, so two
 * processes attaching files to one thread at once both keep their files (each adds its store if the
 * other won the race; both are searched).
 */
export async function attachToThread(
  stores: ThreadStores | undefined,
  threads: ThreadsRepository,
  accountId: string,
  threadId: string,
  fileIds: string[],
): Promise<void> {
  if (!stores || fileIds.length === 0) return;
  let thread = await threads.getThread(accountId, threadId);
  if (!thread) throw new NotFoundError('thread', threadId);
  const existing = storeOf(thread);
  if (existing) {
    await stores.addFiles(accountId, existing, fileIds);
    return;
  }
  const storeId = await createThreadStore(stores, accountId, threadId, fileIds);
  for (;;) {
    if (await threads.saveThread(withStore(thread, storeId), thread)) return;
    thread = await threads.getThread(accountId, threadId);
    if (!thread) throw new NotFoundError('thread', threadId);
  }
}

/**
 * Client messages about to be written to a saved thread: their attachments are checked (404 naming
 * `<prefix>attachments[i].file_id`) and the `file_search` ones put into the thread's store.
 */
export async function attachMessages(
  stores: ThreadStores | undefined,
  threads: ThreadsRepository,
  accountId: string,
  threadId: string,
  messages: readonly Message[],
  prefixes: readonly string[],
): Promise<void> {
  for (const [index, message] of messages.entries()) await checkAttachments(stores, accountId, message, prefixes[index]!);
  await attachToThread(stores, threads, accountId, threadId, fileSearchAttachments(messages));
}
