import type { FileObject, VectorStore } from '@fathom/core';
import { embeddedAccount, openaiClient, type Target, withFathom } from './context';
import { formatTime, printJson, printTable } from './output';

/** Every store of the remote account whose id or name is `idOrName`. */
export async function findStores(
  target: Extract<Target, { mode: 'remote' }>,
  idOrName: string,
): Promise<Array<{ id: string; name: string }>> {
  const client = await openaiClient(target);
  const found: Array<{ id: string; name: string }> = [];
  for await (const store of client.vectorStores.list({ limit: 100 }))
    if (store.id === idOrName || store.name === idOrName) found.push(store);
  return found;
}

/** The one store `idOrName` names, in either mode; an error when none or several match. */
export async function resolveStore(target: Target, idOrName: string): Promise<string> {
  const stores =
    target.mode === 'remote'
      ? await findStores(target, idOrName)
      : await withFathom(async (fathom) => fathom.vectorStores.find(await embeddedAccount(fathom, target.account), idOrName));
  if (stores.length === 0) throw new Error(`No vector store with id or name '${idOrName}'.`);
  if (stores.length > 1)
    throw new Error(`Several vector stores are named '${idOrName}': ${stores.map((s) => s.id).join(', ')}. Pass an id.`);
  return stores[0]!.id;
}

async function listAll<T>(
  page: (after: string | undefined) => Promise<{ data: T[]; has_more: boolean; last_id: string | null }>,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const { data, has_more, last_id } = await page(after);
    all.push(...data);
    if (!has_more || !last_id) return all;
    after = last_id;
  }
}

/** `fathom stores list` */
export async function listStores(target: Target, json: boolean): Promise<void> {
  let stores: Array<Pick<VectorStore, 'id' | 'name' | 'status' | 'usage_bytes' | 'created_at' | 'file_counts'>>;
  if (target.mode === 'remote') {
    const client = await openaiClient(target);
    stores = [];
    for await (const store of client.vectorStores.list({ limit: 100 })) stores.push(store as unknown as VectorStore);
  } else {
    stores = await withFathom(async (fathom) => {
      const accountId = await embeddedAccount(fathom, target.account);
      return listAll((after) => fathom.vectorStores.list(accountId, { limit: 100, after }));
    });
  }
  if (json) return printJson(stores);
  if (stores.length === 0) return console.log('No vector stores.');
  printTable(
    ['ID', 'NAME', 'STATUS', 'FILES', 'BYTES', 'CREATED'],
    stores.map((s) => [s.id, s.name ?? '', s.status, s.file_counts.total, s.usage_bytes, formatTime(s.created_at)]),
  );
}

/** `fathom stores delete` */
export async function deleteStore(target: Target, idOrName: string, json: boolean): Promise<void> {
  const storeId = await resolveStore(target, idOrName);
  const deleted =
    target.mode === 'remote'
      ? await (await openaiClient(target)).vectorStores.delete(storeId)
      : await withFathom(async (fathom) => fathom.vectorStores.delete(await embeddedAccount(fathom, target.account), storeId));
  if (json) return printJson(deleted);
  console.log(`Deleted vector store ${deleted.id}.`);
}

/** `fathom files list` */
export async function listFiles(target: Target, purpose: string | undefined, json: boolean): Promise<void> {
  let files: Array<Pick<FileObject, 'id' | 'filename' | 'bytes' | 'created_at'> & { purpose: string }>;
  if (target.mode === 'remote') {
    const client = await openaiClient(target);
    files = [];
    for await (const file of client.files.list({ limit: 1000, ...(purpose ? { purpose } : {}) })) files.push(file);
  } else {
    files = await withFathom(async (fathom) => {
      const accountId = await embeddedAccount(fathom, target.account);
      return listAll((after) => fathom.files.list(accountId, { limit: 1000, after, ...(purpose ? { purpose } : {}) }));
    });
  }
  if (json) return printJson(files);
  if (files.length === 0) return console.log('No files.');
  printTable(
    ['ID', 'FILENAME', 'BYTES', 'PURPOSE', 'CREATED'],
    files.map((f) => [f.id, f.filename, f.bytes, f.purpose, formatTime(f.created_at)]),
  );
}

/** `fathom files delete` */
export async function deleteFile(target: Target, fileId: string, json: boolean): Promise<void> {
  const deleted =
    target.mode === 'remote'
      ? await (await openaiClient(target)).files.delete(fileId)
      : await withFathom(async (fathom) => fathom.files.delete(await embeddedAccount(fathom, target.account), fileId));
  if (json) return printJson(deleted);
  console.log(`Deleted file ${deleted.id}.`);
}
