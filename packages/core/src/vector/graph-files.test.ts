import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../embeddings';
import type { Logger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import { VectorIndex, type VectorIndexOptions } from './vector-index';
import { vectorSchema } from './vector-schema';

const hash = new HashEmbedder();
const fixture = fileURLToPath(new URL('./__fixtures__/graph-process.ts', import.meta.url));

let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;
let logs: string[];
const log: Logger = {
  info: (message) => logs.push(message),
  warn: (message) => logs.push(message),
  error: (message) => logs.push(message),
};

/** The index of this process; every store on a graph unless `exactSearchLimit` says otherwise. */
function open(options: Partial<VectorIndexOptions> = {}): VectorIndex {
  return new VectorIndex({ db, embedder: hash, dataDir: dir, log, exactSearchLimit: 0, ...options });
}

async function addFile(target: VectorIndex, storeId: string, fileId: string, texts: string[]) {
  const { embeddings } = await hash.embed({ values: texts });
  await target.addFileChunks({
    storeId,
    fileId,
    filename: `${fileId}.txt`,
    attributes: null,
    chunks: texts.map((text, i) => ({ index: i, text, tokens: hash.countTokens(text), vector: embeddings[i]! })),
  });
}

const TEXTS = [
  'Invoices are issued on the first day of each month and paid by card.',
  'Refunds for duplicate payments take five business days.',
  'Kittens sleep sixteen hours a day and play at night.',
  'Puppies need vaccinations before going outside.',
  'Snow closed the mountain road for three days.',
  'Heavy rain flooded the river valley.',
  'The error ERR_QUOTA_7731 means the monthly quota of API calls is exhausted.',
  'Timeouts happen when the upstream server is slow.',
];

async function fill(target: VectorIndex) {
  for (let file = 0; file < 4; file++) await addFile(target, 'vs_main', `file-${file}`, TEXTS.slice(file * 2, file * 2 + 2));
}

/** Runs the fixture as a second process on the same data dir: its log lines and its answer. */
function otherProcess(...args: string[]): Promise<{ logs: string[]; hits?: string[] }> {
  return otherProcessWith({}, ...args);
}

function otherProcessWith(env: Record<string, string>, ...args: string[]): Promise<{ logs: string[]; hits?: string[] }> {
  return new Promise((resolve, reject) => {
    // The test runs' build of the fixture when there is one (FATHOM_TEST_WORKERS_DIR): through tsx, each of
    // this file's eight processes spends about 2 s more CPU loading the sources.
    const built = process.env.FATHOM_TEST_WORKERS_DIR;
    const entry = built ? [join(built, 'graph-process.js')] : ['--conditions=fathom-source', '--import', 'tsx', fixture];
    const child = spawn(process.execPath, [...entry, dir, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (data: Buffer) => (out += data.toString()));
    child.stderr.on('data', (data: Buffer) => (err += data.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`graph-process exited with ${code}: ${err}`));
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { log?: string; hits?: string[] });
      resolve({ logs: lines.flatMap((line) => (line.log ? [line.log] : [])), hits: lines.find((line) => line.hits)?.hits });
    });
  });
}

const graphWork = (lines: string[]) => lines.filter((line) => /Rebuilding|Updating/.test(line));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-graphs-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  logs = [];
  index = open();
});

afterEach(async () => {
  await index.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('HNSW files', () => {
  it('are reused, never rebuilt, by a process that opens the data dir after another one saved them', async () => {
    await fill(index);
    const own = await index.search(['vs_main'], { query: 'vaccinations for puppies', ranker: 'none' });
    await index.flush(); // what the server does a few seconds after a write, and at shutdown
    expect(existsSync(join(dir, 'vector-index', 'vs_main.0.hnsw'))).toBe(true);
    expect(existsSync(join(dir, 'vector-index', 'vs_main.1.hnsw'))).toBe(true);

    // Another process (say `fathom search` beside the running server) opens the same data dir.
    const other = await otherProcess('search', 'vs_main', 'vaccinations for puppies');
    expect(other.hits).toEqual(own.map((hit) => hit.content[0]!.text));
    expect(graphWork(other.logs)).toEqual([]);

    // And this one, reopened, finds its own file current too.
    await index.close();
    index = open();
    expect(await index.search(['vs_main'], { query: 'vaccinations for puppies', ranker: 'none' })).toEqual(own);
    expect(graphWork(logs)).toEqual([]);
  });

  it("follow another process's writes: the graph in memory catches up, and neither process rebuilds", async () => {
    await fill(index);
    await index.search(['vs_main'], { query: 'kittens', ranker: 'none' }); // the graph is in memory
    await index.flush();

    // `fathom ingest` beside the running server: a new file from the other process.
    const added = await otherProcess('add', 'vs_main', 'file-new', 'Volcanic ash grounded every flight.');
    expect(graphWork(added.logs)).toEqual([]);

    // This process's graph did not see that write; its next search brings it up to date first.
    const [hit] = await index.search(['vs_main'], { query: 'volcanic ash flight', ranker: 'none' });
    expect(hit!.content[0]!.text).toBe('Volcanic ash grounded every flight.');
    expect(graphWork(logs)).toEqual([]);

    // Whichever saved last, the file the next process finds is current.
    await index.close();
    const after = await otherProcess('search', 'vs_main', 'volcanic ash flight');
    expect(after.hits![0]).toBe('Volcanic ash grounded every flight.');
    expect(graphWork(after.logs)).toEqual([]);
    index = open();
  });

  it('behind the database (saved before a crash): brought up to date from the files, saying why', async () => {
    await fill(index);
    await index.close();
    const files = readdirSync(join(dir, 'vector-index'));
    for (const file of files) cpSync(join(dir, 'vector-index', file), join(dir, `old-${file}`));
    index = open();
    await addFile(index, 'vs_main', 'file-new', ['Volcanic ash grounded every flight.']);
    await index.removeFile('vs_main', 'file-0');
    await index.close();
    // The process died before its last save: the files on disk are the ones from before those writes.
    for (const file of files) cpSync(join(dir, `old-${file}`), join(dir, 'vector-index', file));

    const other = await otherProcess('search', 'vs_main', 'volcanic ash flight');
    expect(other.hits![0]).toBe('Volcanic ash grounded every flight.');
    expect(other.hits).not.toContain(TEXTS[0]);
    expect(graphWork(other.logs)).toEqual([
      expect.stringMatching(
        /^Updating the HNSW index of vs_main \(its files are at generation (\d+) and \1, the database at \d+: written since by this or another process\): 1 vector to add, 2 removed\.$/,
      ),
    ]);
    // What it caught up was saved: the next process finds the files current.
    expect(graphWork((await otherProcess('search', 'vs_main', 'volcanic ash flight')).logs)).toEqual([]);
    index = open();
  });

  it('missing or unreadable: rebuilt from the database, saying why', async () => {
    await fill(index);
    await index.close();
    const path = (shard: number) => join(dir, 'vector-index', `vs_main.${shard}.hnsw`);

    truncateSync(path(0), 100);
    const damaged = await otherProcess('search', 'vs_main', 'vaccinations for puppies');
    expect(damaged.hits![0]).toBe('Puppies need vaccinations before going outside.');
    expect(graphWork(damaged.logs)).toEqual([
      expect.stringMatching(
        /^Rebuilding the HNSW index of vs_main \(shard 1 of 2\) from 4 vectors in SQLite: its HNSW file could not be read \(.+\)\.$/,
      ),
    ]);

    for (const shard of [0, 1]) for (const file of [path(shard), `${path(shard)}.json`]) rmSync(file);
    const missing = await otherProcess('search', 'vs_main', 'vaccinations for puppies');
    expect(missing.hits![0]).toBe('Puppies need vaccinations before going outside.');
    expect(graphWork(missing.logs)).toEqual(['Rebuilding the HNSW index of vs_main from 8 vectors in SQLite: it has no HNSW file yet.']);

    // A data dir of an earlier version: one file per store, replaced by one per shard.
    for (const shard of [0, 1])
      for (const file of [path(shard), `${path(shard)}.json`])
        cpSync(file, join(dir, 'vector-index', `vs_main${file.endsWith('.json') ? '.hnsw.json' : '.hnsw'}`));
    for (const shard of [0, 1]) rmSync(path(shard));
    const legacy = await otherProcess('search', 'vs_main', 'vaccinations for puppies');
    expect(graphWork(legacy.logs)).toEqual([
      'Rebuilding the HNSW index of vs_main from 8 vectors in SQLite: its HNSW file is of an earlier version (one graph per store; now one per shard).',
    ]);
    expect(readdirSync(join(dir, 'vector-index')).sort()).toEqual([
      'vs_main.0.hnsw',
      'vs_main.0.hnsw.json',
      'vs_main.1.hnsw',
      'vs_main.1.hnsw.json',
    ]);
    index = open();
  });

  it('built with the parameters of an earlier version: used as they are, not rebuilt; parameters the operator sets rebuild them, saying why', async () => {
    const sidecar = (store: string, shard: number) =>
      JSON.parse(readFileSync(join(dir, 'vector-index', `${store}.${shard}.hnsw.json`), 'utf8')) as { m: number; efConstruction: number };
    await fill(index);
    await index.flush();
    expect(sidecar('vs_main', 0)).toMatchObject({ m: 16, efConstruction: 200 }); // this version's graphs

    // A store whose graphs an earlier version built (efConstruction 100).
    await index.close();
    index = open({ hnsw: { m: 16, efConstruction: 100 } });
    for (let file = 0; file < 4; file++) await addFile(index, 'vs_old', `file-${file}`, TEXTS.slice(file * 2, file * 2 + 2));
    await index.close();
    expect(sidecar('vs_old', 0)).toMatchObject({ m: 16, efConstruction: 100 });

    // This version's defaults load them, search and write them, and save them with their own parameters.
    logs = [];
    index = open();
    await addFile(index, 'vs_old', 'file-new', ['Volcanic ash grounded every flight.']);
    const [hit] = await index.search(['vs_old'], { query: 'volcanic ash flight', ranker: 'none' });
    expect(hit!.content[0]!.text).toBe('Volcanic ash grounded every flight.');
    await index.flush();
    expect(graphWork(logs)).toEqual([]);
    for (const shard of [0, 1]) expect(sidecar('vs_old', shard)).toMatchObject({ m: 16, efConstruction: 100 });

    // Parameters set by the operator are what they want: files built otherwise are rebuilt with them.
    await index.close();
    logs = [];
    index = open({ hnsw: { m: 8, efConstruction: 50 } });
    const [again] = await index.search(['vs_old'], { query: 'volcanic ash flight', ranker: 'none' });
    expect(again!.content[0]!.text).toBe('Volcanic ash grounded every flight.');
    expect(graphWork(logs)).toEqual([
      'Rebuilding the HNSW index of vs_old from 9 vectors in SQLite: its HNSW file was built with M=16, efConstruction=100; the configuration asks for M=8, efConstruction=50.',
    ]);
    await index.flush();
    for (const shard of [0, 1]) expect(sidecar('vs_old', shard)).toMatchObject({ m: 8, efConstruction: 50 });
  });

  it('a long rebuild reports its progress', async () => {
    const texts = Array.from({ length: 3000 }, (_, i) => `chunk ${i} about ${['kittens', 'rain', 'invoices'][i % 3]} number ${i * 7}`);
    await addFile(index, 'vs_big', 'file-big', texts);
    await index.close();
    for (const shard of [0, 1]) rmSync(join(dir, 'vector-index', `vs_big.${shard}.hnsw`));
    logs = [];
    index = open({ hnsw: { progressIntervalMs: 0 } });
    await index.search(['vs_big'], { query: 'chunk 1234', ranker: 'none' });
    expect(graphWork(logs)).toEqual([
      'Rebuilding the HNSW index of vs_big from 3,000 vectors in SQLite: it has no HNSW file yet.',
      expect.stringMatching(/^Rebuilding the HNSW index of vs_big: 1,000 of 3,000 vectors \(33%\), about \d+ s left\.$/),
      expect.stringMatching(/^Rebuilding the HNSW index of vs_big: 2,000 of 3,000 vectors \(66%\), about \d+ s left\.$/),
      expect.stringMatching(/^Rebuilding the HNSW index of vs_big: 3,000 of 3,000 vectors \(100%\), about 0 s left\.$/),
      expect.stringMatching(/^Rebuilding the HNSW index of vs_big: done, 3,000 vectors in \d+ s\.$/),
    ]);
  });
});

describe('IVF files', () => {
  it("are used by another process without a build, and each process follows the other's writes", async () => {
    await index.close();
    index = open({ ivfAboveChunks: 500 });
    const topics = ['invoice payment card refund', 'kitten puppy sleep play', 'snow rain river valley'];
    for (let file = 0; file < 30; file++) {
      const texts = Array.from({ length: 20 }, (_, i) => `${topics[file % 3]} file${file} chunk${i}`);
      await addFile(index, 'vs_large', `file-${file}`, texts);
    }
    const deadline = Date.now() + 60_000;
    while (index.vectorIndexOf('vs_large') !== 'ivf') {
      if (Date.now() > deadline) throw new Error('no IVF after 60 s');
      await index.search(['vs_large'], { query: 'kitten puppy', ranker: 'none' });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await index.flush();
    expect(readdirSync(join(dir, 'vector-index')).sort()).toEqual([
      'vs_large.0.ivf',
      'vs_large.0.ivf.json',
      'vs_large.1.ivf',
      'vs_large.1.ivf.json',
    ]);
    const own = await index.search(['vs_large'], { query: 'snow rain file7', ranker: 'none' });
    logs = [];
    const ivf = { IVF_ABOVE: '500' };
    const built = (lines: string[]) => lines.filter((line) => /Building|Rebuilding/.test(line));

    // Another process searches the IVF files as they are.
    const other = await otherProcessWith(ivf, 'search', 'vs_large', 'snow rain file7');
    expect(other.hits).toEqual(own.map((hit) => hit.content[0]!.text));
    expect([...built(other.logs), ...graphWork(other.logs)]).toEqual([]);

    // It writes; this process's IVF catches up from SQLite on its next search, and builds nothing.
    const added = await otherProcessWith(ivf, 'add', 'vs_large', 'file-new', 'Volcanic ash grounded every flight.');
    expect(built(added.logs)).toEqual([]);
    const [hit] = await index.search(['vs_large'], { query: 'Volcanic ash grounded every flight.', ranker: 'none' });
    expect(hit!.content[0]!.text).toBe('Volcanic ash grounded every flight.');
    expect(built(logs)).toEqual([]);

    // This process writes and closes; the files the other one opens next have both writes, and nothing is built.
    await addFile(index, 'vs_large', 'file-mine', ['Heavy snow closed the mountain pass.']);
    await index.close();
    const after = await otherProcessWith(ivf, 'search', 'vs_large', 'Heavy snow closed the mountain pass.');
    expect(after.hits![0]).toBe('Heavy snow closed the mountain pass.');
    const again = await otherProcessWith(ivf, 'search', 'vs_large', 'Volcanic ash grounded every flight.');
    expect(again.hits![0]).toBe('Volcanic ash grounded every flight.');
    expect([...built(after.logs), ...built(again.logs), ...graphWork(after.logs), ...graphWork(again.logs)]).toEqual([]);
    index = open({ ivfAboveChunks: 500 });
  });
});

describe('graphs in memory', () => {
  it('small stores are scanned exactly and have no graph; a store that outgrows the scan gets one', async () => {
    await index.close();
    index = open({ exactSearchLimit: 4 });
    await addFile(index, 'vs_small', 'file-1', TEXTS.slice(0, 4));
    expect((await index.search(['vs_small'], { query: 'vaccinations for puppies', ranker: 'none' }))[0]!.content[0]!.text).toBe(TEXTS[3]);
    await index.flush();
    expect(readdirSync(join(dir, 'vector-index'))).toEqual([]);
    expect(index.graphsInMemory().stores).toBe(0);

    await addFile(index, 'vs_small', 'file-2', TEXTS.slice(4));
    expect((await index.search(['vs_small'], { query: 'heavy rain river', ranker: 'none' }))[0]!.content[0]!.text).toBe(TEXTS[5]);
    await index.flush();
    expect(readdirSync(join(dir, 'vector-index')).sort()).toEqual([
      'vs_small.0.hnsw',
      'vs_small.0.hnsw.json',
      'vs_small.1.hnsw',
      'vs_small.1.hnsw.json',
    ]);
    expect(index.graphsInMemory().stores).toBe(1);
  });

  it('keeps graphs within the memory budget: idle ones are saved and unloaded, and load again from their file', async () => {
    await index.close();
    index = open({ hnsw: { memoryBytes: 1 } });
    for (const store of ['vs_a', 'vs_b', 'vs_c'])
      await addFile(
        index,
        store,
        'file-1',
        TEXTS.map((text) => `${store} ${text}`),
      );
    // Each store's graph pushed out the one before: only the last is in memory.
    expect(index.graphsInMemory().stores).toBe(1);
    for (const store of ['vs_a', 'vs_b', 'vs_c']) {
      const [hit] = await index.search([store], { query: `${store} heavy rain river`, ranker: 'none' });
      expect(hit!.content[0]!.text).toBe(`${store} ${TEXTS[5]}`);
      expect(index.graphsInMemory().stores).toBe(1);
    }
    // Unloading saved each graph: loading it again used the file.
    expect(graphWork(logs)).toEqual([]);
    // Searching several stores at once holds all of their graphs for the search.
    expect(await index.search(['vs_a', 'vs_b', 'vs_c'], { query: 'heavy rain river', ranker: 'none', maxNumResults: 3 })).toHaveLength(3);
  });
});
