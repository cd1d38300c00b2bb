import { VectorStoreSearchParams } from '@fathom/core';
import { checkValue } from '../validators';
import { embeddedAccount, openaiClient, type Target, withFathom } from './context';
import { printJson } from './output';
import { resolveStore } from './stores';

interface Hit {
  file_id: string;
  filename: string;
  score: number;
  content: Array<{ text: string }>;
}

/** `fathom search`: the best passages of one store with their file names and scores. */
export async function search(target: Target, storeName: string, query: string, options: { limit: string; json: boolean }): Promise<void> {
  const request = checkValue(VectorStoreSearchParams, { query, max_num_results: options.limit }, { coerce: true });
  let hits: Hit[];
  if (target.mode === 'remote') {
    const storeId = await resolveStore(target, storeName);
    const client = await openaiClient(target);
    hits = (await client.vectorStores.search(storeId, { query, max_num_results: request.max_num_results })).data;
  } else {
    hits = await withFathom(async (fathom) => {
      const accountId = await embeddedAccount(fathom, target.account);
      const stores = await fathom.vectorStores.find(accountId, storeName);
      if (stores.length === 0) throw new Error(`No vector store with id or name '${storeName}'.`);
      if (stores.length > 1)
        throw new Error(`Several vector stores are named '${storeName}': ${stores.map((s) => s.id).join(', ')}. Pass an id.`);
      return (await fathom.vectorStores.search(accountId, stores[0]!.id, request)).data;
    });
  }
  if (options.json) return printJson(hits);
  if (hits.length === 0) console.log('No passages found.');
  hits.forEach((hit, i) => {
    const text = hit.content
      .map((part) => part.text)
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    console.log(`${i + 1}. ${hit.score.toFixed(3)}  ${hit.filename}  (${hit.file_id})`);
    console.log(`   ${text.length > 400 ? `${text.slice(0, 400)}…` : text}\n`);
  });
}
