import { Fathom } from '@fathom/core';

const USAGE = `Usage: fathom reindex <store id or name>   re-embed one vector store with the current embedder
       fathom reindex --all                   re-embed every store built by another embedder`;

/** Store ids of any account matching an id or a name; an id only the index knows still counts. */
async function resolveStores(fathom: Fathom, wanted: string): Promise<string[]> {
  const ids = await fathom.vectorStores.idsNamed(wanted);
  if (ids.length) return ids;
  return (await fathom.vectorIndex.storeInfo(wanted)) ? [wanted] : [];
}

/** `fathom reindex`: re-embeds a store's chunks with the current embedder and rebuilds its HNSW index. */
export async function run(args: string[]): Promise<void> {
  const [target] = args;
  if (!target || target === '--help' || target === '-h') {
    console.log(USAGE);
    if (!target) process.exitCode = 2;
    return;
  }
  const fathom = await Fathom.open({ start: false });
  try {
    const embedderId = fathom.embedder.id;
    let storeIds: string[];
    if (target === '--all') {
      storeIds = await fathom.vectorIndex.storesNotBuiltWith(embedderId);
      if (storeIds.length === 0) console.log(`Every store is already indexed with ${embedderId}.`);
    } else {
      storeIds = await resolveStores(fathom, target);
      if (storeIds.length === 0) throw new Error(`No vector store with id or name '${target}'.`);
      if (storeIds.length > 1) throw new Error(`Several vector stores are named '${target}': ${storeIds.join(', ')}. Pass an id.`);
    }
    for (const storeId of storeIds) {
      const before = await fathom.vectorIndex.storeInfo(storeId);
      console.log(
        `Re-indexing ${storeId} (${before?.chunks ?? 0} chunks, built with ${before?.embedderId ?? 'nothing yet'}) with ${embedderId}...`,
      );
      const started = Date.now();
      let lastPrint = 0;
      const { chunks } = await fathom.vectorIndex.reindex(storeId, (done, total) => {
        if (process.stdout.isTTY && Date.now() - lastPrint > 200) {
          lastPrint = Date.now();
          process.stdout.write(`\r  ${done}/${total} chunks`);
        }
      });
      if (process.stdout.isTTY) process.stdout.write('\r');
      const seconds = (Date.now() - started) / 1000;
      console.log(`  ${chunks} chunks re-embedded and indexed in ${seconds.toFixed(1)} s.`);
    }
  } finally {
    await fathom.close();
  }
}
