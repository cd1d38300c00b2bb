/**
 * A second process on a data dir, for `vector-index-processes.test.ts`: opens the SQLite index of
 * `<dataDir>` (hash embedder, every store on a graph, or above `IVF_ABOVE` chunks on IVFs) and runs one command, printing each log line and
 * the answer as JSON lines on stdout.
 *
 *   graph-process.ts <dataDir> add <storeId> <fileId> <text>…
 *   graph-process.ts <dataDir> search <storeId> <query>
 */
import { join } from 'node:path';
import { HashEmbedder } from '../../embeddings';
import type { Logger } from '../../internal/logger';
import { SqliteDatabase } from '../../storage';
import { VectorIndex } from '../vector-index';
import { vectorSchema } from '../vector-schema';

const [dataDir, command, storeId, ...rest] = process.argv.slice(2);
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const log: Logger = {
  info: (message) => print({ log: message }),
  warn: (message) => print({ log: message }),
  error: (message) => print({ log: message }),
};
const embedder = new HashEmbedder();
const db = new SqliteDatabase({ location: join(dataDir!, 'fathom.db'), schemas: [vectorSchema] });
// `IVF_ABOVE`: stores of more chunks are served by IVFs (as `FATHOM_IVF_ABOVE_CHUNKS` sets it in the server).
const ivfAbove = process.env.IVF_ABOVE ? { ivfAboveChunks: Number(process.env.IVF_ABOVE) } : {};
const index = new VectorIndex({ db, embedder, dataDir: dataDir!, log, exactSearchLimit: 0, ...ivfAbove });
if (command === 'add') {
  const [fileId, ...texts] = rest;
  const { embeddings } = await embedder.embed({ values: texts });
  await index.addFileChunks({
    storeId: storeId!,
    fileId: fileId!,
    filename: `${fileId}.txt`,
    attributes: null,
    chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
  });
  print({ added: texts.length });
} else if (command === 'search') {
  const hits = await index.search([storeId!], { query: rest.join(' '), ranker: 'none' });
  print({ hits: hits.map((hit) => hit.content[0]!.text) });
}
await index.close();
await db.close();
