import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { HashEmbedder } from '../embeddings';
import { silentLogger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import { StoreGraphs } from './store-graphs';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

const embedder = new HashEmbedder();
let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-scope-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  // Every store is searched through its graph (in the worker), as a large store is.
  index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, exactSearchLimit: 0 });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await index.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function addFile(fileId: string, texts: string[]) {
  const { embeddings } = await embedder.embed({ values: texts });
  await index.addFileChunks({
    storeId: 'vs_1',
    fileId,
    filename: `${fileId}.txt`,
    attributes: null,
    chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
  });
}

it('does not return the keyword hits of a file deleted while the graph workers searched', async () => {
  await addFile('file-errors', ['The error ERR_QUOTA_7731 means the monthly quota of API calls is exhausted.']);
  await addFile('file-weather', ['Snow closed the mountain road for three days.', 'Heavy rain flooded the river valley.']);
  const query = { query: 'quota ERR_QUOTA_7731 exhausted', mode: 'hybrid' as const };
  expect((await index.search(['vs_1'], query)).map((hit) => hit.file_id)).toContain('file-errors');
  // The vector side answers only once the file is gone: the keyword side's rows were read before that.
  let deleted!: Promise<void>;
  const search = StoreGraphs.prototype.search;
  vi.spyOn(StoreGraphs.prototype, 'search').mockImplementation(function (this: StoreGraphs, request) {
    const answer = search.call(this, request);
    deleted = index.removeFile('vs_1', 'file-errors');
    return deleted.then(() => answer);
  });
  const hits = await index.search(['vs_1'], query);
  await deleted;
  expect(hits.map((hit) => hit.file_id)).not.toContain('file-errors');
});

it('does not return the vector hits of a file deleted while the graph workers searched', async () => {
  await addFile('file-errors', ['The error ERR_QUOTA_7731 means the monthly quota of API calls is exhausted.']);
  await addFile('file-weather', ['Snow closed the mountain road for three days.', 'Heavy rain flooded the river valley.']);
  const query = { query: 'The error ERR_QUOTA_7731 means the monthly quota of API calls is exhausted.', mode: 'vector' as const };
  expect((await index.search(['vs_1'], query))[0]?.file_id).toBe('file-errors');
  // The workers found the file's chunk; it is deleted before the search reads the rows of what they found.
  let deleted!: Promise<void>;
  const search = StoreGraphs.prototype.search;
  vi.spyOn(StoreGraphs.prototype, 'search').mockImplementation(function (this: StoreGraphs, request) {
    return search.call(this, request).then((answer) => {
      deleted = index.removeFile('vs_1', 'file-errors');
      return deleted.then(() => answer);
    });
  });
  const hits = await index.search(['vs_1'], query);
  await deleted;
  expect(hits.length).toBeGreaterThan(0);
  expect(hits.map((hit) => hit.file_id)).not.toContain('file-errors');
});
