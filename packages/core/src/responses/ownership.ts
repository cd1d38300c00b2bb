import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../errors';
import type { StoreSearcher } from '../vector';
import type { InputItem } from './items';
import type { ResponseRequest } from './read-request';
import type { FileContents } from './to-messages';

/** The parts of the request's own input that name uploaded files, with the field each is in. */
function fileParts(input: readonly InputItem[], at: string): Array<{ fileId: string; param: string }> {
  const found: Array<{ fileId: string; param: string }> = [];
  input.forEach((item, index) => {
    if (item.type !== 'message' || !Array.isArray(item.content)) return;
    (item.content as Array<Record<string, unknown>>).forEach((part, position) => {
      if ((part.type === 'input_file' || part.type === 'input_image') && typeof part.file_id === 'string') {
        found.push({ fileId: part.file_id, param: `${at}[${index}].content[${position}].file_id` });
      }
    });
  });
  return found;
}

/**
 * Checks, when the request is made, that every file its input names (`input_file`, `input_image` by
 * `file_id`) and every vector store of its `file_search` tool belong to the account: 404 naming the field
 * otherwise, the same answer for foreground and background requests (a background request must not be
 * queued to fail later). Nothing is read or extracted here.
 */
export async function checkOwnership(
  deps: { files?: FileContents; searcher?: StoreSearcher },
  accountId: string,
  request: ResponseRequest,
): Promise<void> {
  await checkFiles(deps.files, accountId, request.input, 'input');
  const fileSearch = request.fileSearch;
  if (!fileSearch) return;
  if (!deps.searcher) {
    throw new ServiceUnavailableError('file_search is not available: document search is not configured on this installation.');
  }
  for (const [index, storeId] of fileSearch.vectorStoreIds.entries()) {
    try {
      // With no time to wait, this only checks that the store is the account's.
      await deps.searcher.waitForIngestion(accountId, [storeId], 0);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError('vector store', storeId, `${fileSearch.at}.vector_store_ids[${index}]`);
      throw error;
    }
  }
}

/**
 * 404 naming the field unless every file the items' message parts name (`input_file`, `input_image` by
 * `file_id`) is an uploaded file of the account; `at` names the list (`input`, `items`). Nothing is read.
 */
export async function checkFiles(
  files: FileContents | undefined,
  accountId: string,
  items: readonly InputItem[],
  at: string,
): Promise<void> {
  const seen = new Set<string>();
  for (const { fileId, param } of fileParts(items, at)) {
    if (!files) throw new InvalidRequestError(`Files in the input need the documents capability.`, param);
    if (seen.has(fileId)) continue;
    seen.add(fileId);
    await files.checkFile(accountId, fileId, param);
  }
}
