/**
 * A filter that leaves a small part of a large store is searched inside the graph, and hnswlib's filtered
 * walk keeps going until it has found a beam of allowed chunks: when they are far from the query it crosses
 * most of the graph first (at 1M chunks 382 ms of CPU at p50, 956 ms at p99, against ~7 ms when they are
 * near; docs/performance.md). The walk has a budget of judged candidates; past it the graph worker scans the
 * allowed chunks exactly instead, from the vectors its graph holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { HashEmbedder } from '../embeddings';
import { silentLogger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import type { HnswSearchResult } from './hnsw-protocol';
import { mergeRanges } from './id-ranges';
import { StoreGraphs } from './store-graphs';
import { blobToVector, dot } from './vector-blob';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

const embedder = new HashEmbedder();
const STORE = 'vs_walk';
const NEAR = ['harbor', 'ferry', 'tide', 'dock', 'sail', 'anchor', 'pier', 'wave', 'boat', 'gull', 'rope', 'mast'];
const FAR = ['violin', 'cello', 'sonata', 'chord', 'tempo', 'opera', 'flute', 'rhythm', 'choir', 'score', 'aria', 'piano'];
let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;
let deletedIds: number[];

/** `count` chunks of words from `words`, varied by `seed`. */
function texts(words: string[], count: number, seed: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: 8 }, (_, w) => words[(i * 7 + w * 5 + seed * 3 + ((i * w) % 11)) % words.length]).join(' '),
  );
}

async function addFile(fileId: string, chunkTexts: string[], group: string) {
  const { embeddings } = await embedder.embed({ values: chunkTexts });
  await index.addFileChunks({
    storeId: STORE,
    fileId,
    filename: `${fileId}.txt`,
    attributes: { group },
    chunks: chunkTexts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-walk-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  // The store (6,800 chunks) is searched through its graphs; a filter leaving 400 of them (6%) inside the walk.
  index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, exactSearchLimit: 256 });
  for (let file = 0; file < 15; file++) await addFile(`file-near-${file}`, texts(NEAR, 400, file), 'harbor');
  await addFile('file-near-filtered', texts(NEAR.slice(0, 6), 400, 99), 'near');
  await addFile('file-far', texts(FAR, 400, 7), 'far');
  // Near the query, then deleted: its chunks stay in the graphs, marked deleted, next to the far file's ids.
  await addFile('file-near-deleted', texts(NEAR, 400, 42), 'deleted');
  deletedIds = chunkIds('file-near-deleted');
  await index.removeFile(STORE, 'file-near-deleted');
});

afterAll(async () => {
  await index.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

type GraphSearch = Parameters<StoreGraphs['search']>[0];

/** The graph searches during `run`: their requests, the graph workers' answers and the graphs that gave them. */
async function walks<T>(
  run: () => Promise<T>,
): Promise<{ result: T; requests: GraphSearch[]; answers: HnswSearchResult[]; graphs?: StoreGraphs }> {
  const requests: GraphSearch[] = [];
  const answers: HnswSearchResult[] = [];
  const search = StoreGraphs.prototype.search;
  let graphs: StoreGraphs | undefined;
  const spy = vi.spyOn(StoreGraphs.prototype, 'search').mockImplementation(function (this: StoreGraphs, request) {
    graphs = this;
    requests.push(request);
    return search.call(this, request).then((answer) => {
      answers.push(answer);
      return answer;
    });
  });
  try {
    return { result: await run(), requests, answers, graphs };
  } finally {
    spy.mockRestore();
  }
}

/** The chunk ids of a file. */
function chunkIds(fileId: string): number[] {
  return db.raw
    .prepare<[string], { id: number }>('SELECT id FROM vector_chunks WHERE file_id = ?')
    .all(fileId)
    .map((row) => row.id);
}

/** The file's chunks nearest to `query` by exact similarity, best first. */
function exactTop(fileId: string, query: string, k: number): Array<{ id: number; text: string }> {
  const vector = embedder.embedOne(query);
  return db.raw
    .prepare<[string], { id: number; text: string; vector: Buffer }>('SELECT id, text, vector FROM vector_chunks WHERE file_id = ?')
    .all(fileId)
    .map((row) => ({ id: row.id, text: row.text, similarity: dot(vector, blobToVector(row.vector)) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k)
    .map(({ id, text }) => ({ id, text }));
}

const query = 'harbor ferry tide dock sail anchor';

it('gives up a walk towards allowed chunks far from the query and the worker scans them exactly', async () => {
  const {
    result: hits,
    requests,
    answers,
  } = await walks(() =>
    index.search([STORE], { query, mode: 'vector', maxNumResults: 5, filters: { type: 'eq', key: 'group', value: 'far' } }),
  );
  expect(answers).toHaveLength(1);
  // The graph workers answered with their scan (the main thread reads no vector).
  expect(answers[0]!.scanned).toBe(true);
  const { k } = requests[0]!;
  expect(answers[0]!.labels).toEqual(exactTop('file-far', query, k).map((chunk) => chunk.id));
  // The search's answer: the far file's five nearest chunks, exactly.
  expect(hits.map((hit) => hit.file_id)).toEqual(Array(5).fill('file-far'));
  expect(hits.map((hit) => hit.content[0]!.text)).toEqual(exactTop('file-far', query, 5).map((chunk) => chunk.text));
});

it('never returns a deleted chunk of the allowed ranges from the scan', async () => {
  const { requests, graphs } = await walks(() =>
    index.search([STORE], { query, mode: 'vector', maxNumResults: 5, filters: { type: 'eq', key: 'group', value: 'far' } }),
  );
  // The same walk, with the deleted file's chunks (nearer the query than any far one) allowed too, as by a
  // filter read just before the deletion: the graphs hold them marked deleted.
  const far = chunkIds('file-far');
  const allowed = mergeRanges([
    [Math.min(...far), Math.max(...far)],
    [Math.min(...deletedIds), Math.max(...deletedIds)],
  ]);
  const answer = await graphs!.search({ ...requests[0]!, allowed });
  expect(answer.scanned).toBe(true);
  expect(answer.labels.filter((label) => deletedIds.includes(label))).toEqual([]);
  expect(answer.labels).toEqual(exactTop('file-far', query, requests[0]!.k).map((chunk) => chunk.id));
});

it('answers from the walk when the allowed chunks are near the query', async () => {
  const { result: hits, answers } = await walks(() =>
    index.search([STORE], { query, mode: 'vector', maxNumResults: 5, filters: { type: 'eq', key: 'group', value: 'near' } }),
  );
  expect(answers).toHaveLength(1);
  expect(answers[0]!.scanned).toBeUndefined();
  expect(answers[0]!.labels.length).toBeGreaterThan(0);
  expect(hits.map((hit) => hit.file_id)).toEqual(Array(5).fill('file-near-filtered'));
});
