/**
 * Search results must not move when the search path is made faster. A seeded subset of the search
 * benchmark's corpus (3,500 chunks in two stores) is searched with the benchmark's queries in every mode,
 * over one store, both stores, and with an attribute filter; the ranked hits (file, chunk, score) are
 * compared with `__fixtures__/search-rankings.json`, which the search code before the speed-ups of
 * docs/performance.md produced. Regenerate it only for an intended change of the rankings:
 * `UPDATE_SEARCH_FIXTURE=1 npx vitest run packages/core/src/vector/search-rankings.test.ts`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqliteDatabase } from '../storage';
import { silentLogger } from '../internal/logger';
import { chunkText, queryText, rand, TopicAverageEmbedder, TOPICS } from '../test/search-corpus';
import type { StoreSearchOptions } from './types';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

const FIXTURE = join(import.meta.dirname, '__fixtures__', 'search-rankings.json');
const FILES = { vs_main: 30, vs_side: 5 };
const PER_FILE = 100;
const QUERIES = 40;

let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;
/** `file_id|text` -> `file_id#chunk index`, so a hit names its chunk compactly. */
const chunkOf = new Map<string, string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-rankings-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  const embedder = new TopicAverageEmbedder();
  index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger });
  let file = 0;
  for (const [storeId, count] of Object.entries(FILES)) {
    for (let n = 0; n < count; n++, file++) {
      const topic = file % TOPICS;
      const texts = Array.from({ length: PER_FILE }, () => chunkText(rand() < 0.8 ? topic : Math.floor(rand() * TOPICS)));
      const fileId = `file-${file}`;
      texts.forEach((text, i) => chunkOf.set(`${fileId}|${text}`, `${fileId}#${i}`));
      const { embeddings } = await embedder.embed({ values: texts });
      await index.addFileChunks({
        storeId,
        fileId,
        filename: `doc-${file}.txt`,
        attributes: { topic, part: file % 3 },
        chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
      });
    }
  }
  await index.flush();
});

afterAll(async () => {
  await index?.close();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('ranks the benchmark queries exactly as before (hits, order and scores)', async () => {
  const queries = Array.from({ length: QUERIES }, (_, i) => queryText((i * 7) % TOPICS));
  // A quoted phrase and an identifier exercise the phrase path of the keyword side.
  queries.push('"the of" and tuvi', 'ERR_KALO_1234 quota');
  const cases: Array<{ stores: string[]; options: Omit<StoreSearchOptions, 'query'> }> = [];
  for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
    cases.push({ stores: ['vs_main'], options: { mode, maxNumResults: 8 } });
    cases.push({ stores: ['vs_main', 'vs_side'], options: { mode, maxNumResults: 8 } });
    cases.push({ stores: ['vs_side'], options: { mode, maxNumResults: 5 } });
  }
  cases.push({ stores: ['vs_main'], options: { mode: 'hybrid', maxNumResults: 10, filters: { type: 'eq', key: 'part', value: 1 } } });
  cases.push({ stores: ['vs_main'], options: { mode: 'hybrid', maxNumResults: 8, hybridWeights: { embedding: 1, text: 3 } } });

  const rankings: Record<string, string[]> = {};
  for (const { stores, options } of cases) {
    for (const query of queries) {
      const hits = await index.search(stores, { ...options, query });
      rankings[`${stores.join('+')} ${JSON.stringify(options)} ${query}`] = hits.map(
        (hit) => `${chunkOf.get(`${hit.file_id}|${hit.content[0]!.text}`)} ${hit.score}`,
      );
    }
  }
  // The corpus must give the keyword side work to do in most queries (not an empty comparison).
  const keywordHits = Object.entries(rankings).filter(([key, hits]) => key.includes('"keyword"') && hits.length > 0).length;
  expect(keywordHits).toBeGreaterThan(cases.length * 2);

  if (process.env.UPDATE_SEARCH_FIXTURE) writeFileSync(FIXTURE, `${JSON.stringify(rankings, null, 1)}\n`);
  const expected = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string[]>;
  expect(Object.keys(rankings).length).toBe(Object.keys(expected).length);
  for (const [key, hits] of Object.entries(expected)) expect(rankings[key], key).toEqual(hits);
});
