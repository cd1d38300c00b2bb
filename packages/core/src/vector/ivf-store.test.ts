import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../embeddings';
import type { Logger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import { decodedLists, writeVersion1File } from './__fixtures__/ivf-version-1';
import { IvfIndex } from './ivf';
import type { AttributeFilter } from './types';
import { VectorIndex, type VectorIndexOptions } from './vector-index';
import { vectorSchema } from './vector-schema';

const hash = new HashEmbedder({ dimensions: 64 });
/** Stores of more than this many chunks are served by IVFs in these tests (the default is 300,000). */
const IVF_ABOVE = 500;
const FILE_CHUNKS = 20;

let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;
let logs: string[];
const log: Logger = {
  info: (message) => logs.push(message),
  warn: (message) => logs.push(message),
  error: (message) => logs.push(message),
};

function open(options: Partial<VectorIndexOptions> = {}): VectorIndex {
  return new VectorIndex({ db, embedder: hash, dataDir: dir, log, exactSearchLimit: 0, ivfAboveChunks: IVF_ABOVE, ...options });
}

/** 30 topics of 12 words each: a chunk is 6 words of its file's topic and a word of its own. */
const TOPICS = Array.from({ length: 30 }, (_, topic) => Array.from({ length: 12 }, (_, word) => `t${topic}w${word}`));
let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const words = (topic: number, count: number) => Array.from({ length: count }, () => TOPICS[topic]![Math.floor(random() * 12)]!).join(' ');

async function addFile(target: VectorIndex, fileNumber: number, texts?: string[], storeId = 'vs_big') {
  const topic = fileNumber % TOPICS.length;
  const values = texts ?? Array.from({ length: FILE_CHUNKS }, (_, i) => `${words(topic, 6)} f${fileNumber}c${i}`);
  const { embeddings } = await hash.embed({ values });
  await target.addFileChunks({
    storeId,
    fileId: `file-${fileNumber}`,
    filename: `file-${fileNumber}.txt`,
    attributes: { half: fileNumber % 2 === 0 ? 'even' : 'odd', file: fileNumber },
    chunks: values.map((text, i) => ({ index: i, text, tokens: hash.countTokens(text), vector: embeddings[i]! })),
  });
}

async function addFiles(target: VectorIndex, from: number, to: number) {
  for (let file = from; file < to; file++) await addFile(target, file);
}

const texts = (hits: Array<{ content: Array<{ text: string }> }>) => hits.map((hit) => hit.content[0]!.text);

async function vectorSearch(target: VectorIndex, query: string, filters?: AttributeFilter) {
  return texts(await target.search(['vs_big'], { query, ranker: 'none', maxNumResults: 8, ...(filters ? { filters } : {}) }));
}

/** The exact answer: the same database searched by a full scan (no index). */
async function exactSearch(query: string, filters?: AttributeFilter) {
  const exact = open({ exactSearchLimit: 1_000_000_000 });
  try {
    return await vectorSearch(exact, query, filters);
  } finally {
    await exact.close();
  }
}

const QUERIES = Array.from({ length: 20 }, (_, i) => words(i % TOPICS.length, 4));

async function recallAt8(target: VectorIndex, filters?: AttributeFilter): Promise<number> {
  let found = 0;
  let wanted = 0;
  for (const query of QUERIES) {
    const truth = new Set(await exactSearch(query, filters));
    wanted += truth.size;
    for (const text of await vectorSearch(target, query, filters)) if (truth.has(text)) found++;
  }
  return found / wanted;
}

/** Searches until the store is served by IVFs (each search is answered meanwhile); answers how many searches ran. */
async function searchUntilIvf(target: VectorIndex): Promise<number> {
  const deadline = Date.now() + 60_000;
  let searches = 0;
  while (target.vectorIndexOf('vs_big') !== 'ivf') {
    if (Date.now() > deadline) throw new Error(`still ${target.vectorIndexOf('vs_big')} after 60 s`);
    expect(await vectorSearch(target, QUERIES[searches % QUERIES.length]!)).toHaveLength(8);
    searches++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return searches;
}

const files = () => readdirSync(join(dir, 'vector-index')).filter((name) => !name.includes('.tmp-'));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-ivf-store-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  logs = [];
  index = open();
});

afterEach(async () => {
  await index.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a store above FATHOM_IVF_ABOVE_CHUNKS', () => {
  it('stays on its HNSW graphs below the size', async () => {
    await addFiles(index, 0, 20); // 400 chunks
    expect(await vectorSearch(index, QUERIES[0]!)).toHaveLength(8);
    await index.flush();
    expect(index.vectorIndexOf('vs_big')).toBe('hnsw');
    expect(files().sort()).toEqual(['vs_big.0.hnsw', 'vs_big.0.hnsw.json', 'vs_big.1.hnsw', 'vs_big.1.hnsw.json']);
    expect(logs.filter((line) => line.includes('IVF'))).toEqual([]);
  });

  it('switches to IVFs in the background once ingestion takes it past the size, answering searches all along', async () => {
    await addFiles(index, 0, 20);
    expect(await vectorSearch(index, QUERIES[0]!)).toHaveLength(8);
    expect(index.vectorIndexOf('vs_big')).toBe('hnsw');
    await addFiles(index, 20, 30); // 600 chunks
    await searchUntilIvf(index);
    expect(files().sort()).toEqual(['vs_big.0.ivf', 'vs_big.0.ivf.json', 'vs_big.1.ivf', 'vs_big.1.ivf.json']);
    expect(
      logs.some((line) =>
        /^Building the IVF index of vs_big \(shard 1 of 2\) from \d+ vectors in SQLite: it has \d+ chunks, more than 500/.test(line),
      ),
    ).toBe(true);
    // One shard at a time (the second IVF is built once the first shard's graph is gone), each announced.
    const at = (pattern: RegExp) => logs.findIndex((line) => pattern.test(line));
    const served = [1, 2].map((shard) =>
      at(new RegExp(`^The IVF index of vs_big \\(shard ${shard} of 2\\) serves its searches now: \\d+ vectors, sample \\d+, trained in`)),
    );
    expect(served[0]).toBeGreaterThan(-1);
    expect(at(/^Building the IVF index of vs_big \(shard 2 of 2\)/)).toBeGreaterThan(served[0]!);
    expect(served[1]).toBeGreaterThan(served[0]!);
    expect(await recallAt8(index)).toBeGreaterThanOrEqual(0.95);
  });

  it('loses no write made while the IVFs are built', async () => {
    await addFiles(index, 0, 26); // 520 chunks: the next use starts the build
    expect(await vectorSearch(index, QUERIES[0]!)).toHaveLength(8);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf-building');
    await addFile(index, 100, ['Volcanic ash grounded every flight over the northern islands.']);
    await index.removeFile('vs_big', 'file-3');
    expect(index.vectorIndexOf('vs_big')).toBe('ivf-building'); // both writes went in while the IVFs were built
    await searchUntilIvf(index);
    expect((await vectorSearch(index, 'volcanic ash grounded flight northern islands'))[0]).toBe(
      'Volcanic ash grounded every flight over the northern islands.',
    );
    for (const query of QUERIES) for (const text of await vectorSearch(index, query)) expect(text).not.toMatch(/ f3c\d+$/);
  });

  it('is served by its IVF files after a restart (no rebuild), and a file behind the database is caught up', async () => {
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    await index.close();
    logs = [];
    index = open();
    const answer = await vectorSearch(index, QUERIES[1]!);
    expect(answer).toHaveLength(8);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
    expect(logs.filter((line) => /Building|Rebuilding|Updating/.test(line))).toEqual([]);
    expect(files().some((name) => name.endsWith('.hnsw'))).toBe(false);

    // A crash after writes: the files (and sidecars) on disk are those of before the writes.
    const saved = mkdtempSync(join(tmpdir(), 'fathom-ivf-saved-'));
    cpSync(join(dir, 'vector-index'), saved, { recursive: true });
    await addFile(index, 200, ['Volcanic ash grounded every flight over the northern islands.']);
    await index.removeFile('vs_big', 'file-1');
    await index.close();
    rmSync(join(dir, 'vector-index'), { recursive: true });
    cpSync(saved, join(dir, 'vector-index'), { recursive: true });
    rmSync(saved, { recursive: true });
    logs = [];
    index = open();
    expect((await vectorSearch(index, 'volcanic ash grounded flight northern islands'))[0]).toBe(
      'Volcanic ash grounded every flight over the northern islands.',
    );
    for (const query of QUERIES) for (const text of await vectorSearch(index, query)) expect(text).not.toMatch(/ f1c\d+$/);
    expect(logs.filter((line) => line.startsWith('Updating the IVF index of vs_big'))).toEqual([
      expect.stringMatching(
        /its files are at generation (\d+) and \1, the database at \d+: written since by this or another process\): 1 vector to add, 20 removed\.$/,
      ),
    ]);
    expect(logs.filter((line) => /Building|Rebuilding/.test(line))).toEqual([]);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
  });

  it('reads IVF files of the float format (version 1) with no rebuild, and writes them again as 8-bit rows', async () => {
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    await index.close();
    const paths = ['vs_big.0.ivf', 'vs_big.1.ivf'].map((name) => join(dir, 'vector-index', name));
    for (const path of paths) {
      const current = IvfIndex.load(path);
      writeVersion1File(path, current.dimensions, current.centroids(), decodedLists(current));
      expect(readFileSync(path).readUInt32LE(4)).toBe(1);
    }
    const floatBytes = paths.map((path) => statSync(path).size);
    logs = [];
    index = open();
    expect(await recallAt8(index)).toBeGreaterThanOrEqual(0.95);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
    await index.flush();
    expect(logs.filter((line) => /Building|Rebuilding|Updating/.test(line))).toEqual([]);
    paths.forEach((path, shard) => {
      expect(readFileSync(path).readUInt32LE(4)).toBe(2);
      expect(statSync(path).size).toBeLessThan(floatBytes[shard]! / 2);
    });
  });

  it('retrains its IVFs, one shard at a time, once the store outgrows their lists, answering searches and losing no write', async () => {
    await addFiles(index, 0, 30); // 600 chunks: IVFs of 17 lists a shard (300 vectors)
    await searchUntilIvf(index);
    await index.flush();
    const lists = () =>
      [0, 1].map((shard) => JSON.parse(readFileSync(join(dir, 'vector-index', `vs_big.${shard}.ivf.json`), 'utf8')).lists);
    // Trained when the switch started (past 500 chunks): about the square root of a shard's vectors then.
    const trained = lists();
    for (const shardLists of trained) {
      expect(shardLists).toBeGreaterThanOrEqual(15);
      expect(shardLists).toBeLessThanOrEqual(17);
    }
    await addFiles(index, 30, 70); // 1,400 chunks: 700 a shard want 26 lists, at least 1.5x those they have
    const retrained = () => logs.filter((line) => line.startsWith('The retrained IVF index of vs_big'));
    const deadline = Date.now() + 60_000;
    let wrote = false;
    while (retrained().length < 2) {
      if (Date.now() > deadline) throw new Error(`retrained ${retrained().length} of 2 shards in 60 s`);
      // Searches are answered throughout; writes made during a retrain go to the new IVF too.
      expect(await vectorSearch(index, QUERIES[retrained().length]!)).toHaveLength(8);
      const kind = index.vectorIndexOf('vs_big');
      expect(['ivf', 'ivf-retraining']).toContain(kind);
      if (!wrote && kind === 'ivf-retraining') {
        await addFile(index, 300, ['Volcanic ash grounded every flight over the northern islands.']);
        await index.removeFile('vs_big', 'file-3');
        wrote = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(wrote).toBe(true);
    expect(retrained()).toEqual([
      expect.stringMatching(
        /^The retrained IVF index of vs_big \(shard [01]\) serves its searches now: \d+ vectors on 2[4-6] lists \(were 1[5-7]\)/,
      ),
      expect.stringMatching(
        /^The retrained IVF index of vs_big \(shard [01]\) serves its searches now: \d+ vectors on 2[4-6] lists \(were 1[5-7]\)/,
      ),
    ]);
    lists().forEach((retrainedLists, shard) => expect(retrainedLists).toBeGreaterThanOrEqual(1.5 * trained[shard]!));
    expect((await vectorSearch(index, 'volcanic ash grounded flight northern islands'))[0]).toBe(
      'Volcanic ash grounded every flight over the northern islands.',
    );
    for (const query of QUERIES) for (const text of await vectorSearch(index, query)) expect(text).not.toMatch(/ f3c\d+$/);
    expect(await recallAt8(index)).toBeGreaterThanOrEqual(0.95);

    // A restart loads the retrained files as they are.
    await index.close();
    logs = [];
    index = open();
    expect(await vectorSearch(index, QUERIES[4]!)).toHaveLength(8);
    expect(logs.filter((line) => /Building|Rebuilding|Updating|retrain/.test(line))).toEqual([]);
  });

  it('built straight away when opened with no index file at all, then searched', async () => {
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    await index.close();
    rmSync(join(dir, 'vector-index'), { recursive: true });
    logs = [];
    index = open();
    expect(await vectorSearch(index, QUERIES[2]!)).toHaveLength(8);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
    expect(
      logs.some((line) =>
        /^Building the IVF index of vs_big from 600 vectors in SQLite: it has more than 500 chunks and no index file/.test(line),
      ),
    ).toBe(true);
    await index.flush();
    expect(files().some((name) => name.endsWith('.hnsw'))).toBe(false);
  });

  it('answers filtered searches: exactly over few allowed chunks, only allowed chunks over many', async () => {
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    const oneFile: AttributeFilter = { type: 'eq', key: 'file', value: 7 };
    for (const query of QUERIES.slice(0, 5)) expect(await vectorSearch(index, query, oneFile)).toEqual(await exactSearch(query, oneFile));
    const even: AttributeFilter = { type: 'eq', key: 'half', value: 'even' };
    for (const query of QUERIES) {
      const hits = await vectorSearch(index, query, even);
      expect(hits).toHaveLength(8);
      for (const text of hits) expect(Number(/ f(\d+)c\d+$/.exec(text)![1]) % 2).toBe(0);
    }
    expect(await recallAt8(index, even)).toBeGreaterThanOrEqual(0.95);
  });

  it("scores a filter's chunks exactly when the shard holds few of them, counting only that shard's share", async () => {
    await addFiles(index, 0, 110); // 2,200 chunks; the IVF scores up to 1,024 allowed labels per shard exactly
    await searchUntilIvf(index);
    // 1,100 chunks of topics 0-14 (more than 1,024 in all, 550 per shard), searched with queries of other topics.
    const files = Array.from({ length: 110 }, (_, file) => file).filter((file) => file % TOPICS.length < 15);
    const filter: AttributeFilter = { type: 'in', key: 'file', value: files };
    for (let topic = 15; topic < 30; topic++) {
      const query = words(topic, 4);
      expect(await vectorSearch(index, query, filter)).toEqual(await exactSearch(query, filter));
    }
  });

  it('opens ahead of its first search after a restart (preload), within the memory budget only', async () => {
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    const before = await vectorSearch(index, QUERIES[5]!);
    await index.close();

    index = open();
    logs = [];
    expect(index.vectorIndexOf('vs_big')).toBeUndefined();
    await index.preload();
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
    expect(logs).toEqual([expect.stringMatching(/^opened the indexes of 1 large store\(s\) in \d+ ms$/)]);
    expect(await vectorSearch(index, QUERIES[5]!)).toEqual(before);
    await index.close();

    // A budget the store does not fit in: nothing is opened ahead (its first search opens it, as before).
    index = open({ hnsw: { memoryBytes: 1 } });
    logs = [];
    await index.preload();
    expect(index.vectorIndexOf('vs_big')).toBeUndefined();
    expect(logs).toEqual([]);
    expect(await vectorSearch(index, QUERIES[5]!)).toEqual(before);
  });

  it('is saved and freed past the memory budget like a graph, and loaded from its file when next used', async () => {
    await index.close();
    index = open({ hnsw: { memoryBytes: 1 } }); // every store opened unloads the idle others
    await addFiles(index, 0, 30);
    await searchUntilIvf(index);
    const before = await vectorSearch(index, QUERIES[3]!);
    // The IVFs count against the budget as graphs do: at least their 8-bit rows (a byte a dimension, then the scale).
    expect(index.graphsInMemory().bytes).toBeGreaterThan(600 * (hash.dimensions + 16));
    logs = [];
    await addFile(index, 0, undefined, 'vs_other');
    await addFile(index, 1, undefined, 'vs_other');
    expect(index.vectorIndexOf('vs_other')).toBe('hnsw');
    expect(index.vectorIndexOf('vs_big')).toBeUndefined(); // unloaded to make room
    expect(await vectorSearch(index, QUERIES[3]!)).toEqual(before);
    expect(index.vectorIndexOf('vs_big')).toBe('ivf');
    expect(logs.filter((line) => /Building|Rebuilding|Updating/.test(line))).toEqual([]);
  });
});
