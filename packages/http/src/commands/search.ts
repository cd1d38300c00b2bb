import { Fathom, VectorStoreSearchParams } from '@fathom/core';
import { checkValue } from '../validators';
import { embeddedAccount, parseArgs } from './ingest';

const USAGE = `Usage: fathom search <store id or name> "<query>" [--limit N] [--account <account id>]

Prints the best passages with their file names and scores (0..1). Runs embedded: no server is needed.`;

/** `fathom search`: hybrid search of one store from the command line. */
export async function run(args: string[]): Promise<void> {
  const { positional, options } = parseArgs(args, ['limit', 'account']);
  const [storeName, ...words] = positional;
  if (!storeName || words.length === 0) {
    console.log(USAGE);
    process.exitCode = 2;
    return;
  }
  const request = checkValue(VectorStoreSearchParams, { query: words.join(' '), max_num_results: options.limit ?? '5' }, { coerce: true });
  const fathom = await Fathom.open({ start: false });
  try {
    const accountId = await embeddedAccount(fathom, options.account);
    const stores = await fathom.vectorStores.find(accountId, storeName);
    if (stores.length === 0) throw new Error(`No vector store with id or name '${storeName}'.`);
    if (stores.length > 1)
      throw new Error(`Several vector stores are named '${storeName}': ${stores.map((s) => s.id).join(', ')}. Pass an id.`);
    const { data: hits } = await fathom.vectorStores.search(accountId, stores[0]!.id, request);
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
  } finally {
    await fathom.close();
  }
}
