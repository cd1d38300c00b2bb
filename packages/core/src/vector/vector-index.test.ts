import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../storage';
import { HashEmbedder, type Embedder } from '../embeddings';
import { ConflictError, InvalidRequestError } from '../errors';
import { silentLogger, type Logger } from '../internal/logger';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

const hash = new HashEmbedder();

/** A different vector space with the same dimensions (stands in for a real model). */
class ReversedEmbedder implements Embedder {
  readonly id = 'test:reversed';
  readonly dimensions = hash.dimensions;
  readonly maxInputTokens = 512;
  async embed(options: { values: string[] }) {
    return { embeddings: options.values.map((value) => hash.embedOne(value).reverse()) };
  }
  countTokens(text: string) {
    return hash.countTokens(text);
  }
  tokenize(text: string) {
    return hash.tokenize(text);
  }
}

let dir: string;
let db: SqliteDatabase;
let index: VectorIndex;
let infos: string[];
const log: Logger = { ...silentLogger, info: (message) => infos.push(message) };

function open(embedder: Embedder = hash): VectorIndex {
  return new VectorIndex({ db, embedder, dataDir: dir, log });
}

async function addFile(
  target: VectorIndex,
  storeId: string,
  fileId: string,
  texts: string[],
  attributes: Record<string, string | number | boolean> | null = null,
) {
  const embedder = target.embedder;
  const { embeddings } = await embedder.embed({ values: texts });
  await target.addFileChunks({
    storeId,
    fileId,
    filename: `${fileId}.txt`,
    attributes,
    chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
  });
}

const FILES: Record<string, string[]> = {
  'file-billing': [
    'Invoices are issued on the first day of each month and paid by card.',
    'Refunds for duplicate payments take five business days.',
  ],
  'file-errors': [
    'The error ERR_QUOTA_7731 means the monthly quota of API calls is exhausted.',
    'Timeouts happen when the upstream server is slow.',
  ],
  'file-pets': ['Kittens sleep sixteen hours a day and play at night.', 'Puppies need vaccinations before going outside.'],
  'file-weather': ['Snow closed the mountain road for three days.', 'Heavy rain flooded the river valley.'],
};

async function fill(target: VectorIndex, storeId = 'vs_main') {
  await addFile(target, storeId, 'file-billing', FILES['file-billing']!, { team: 'finance', year: 2024, public: true });
  await addFile(target, storeId, 'file-errors', FILES['file-errors']!, { team: 'platform', year: 2025, public: false });
  await addFile(target, storeId, 'file-pets', FILES['file-pets']!, { team: 'home', year: 2023, public: true });
  await addFile(target, storeId, 'file-weather', FILES['file-weather']!, null);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-vector-'));
  db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  infos = [];
  index = open();
});

afterEach(async () => {
  await index.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('VectorIndex', () => {
  it('adds chunks and finds them with hybrid search, in the SDK result shape', async () => {
    await fill(index);
    const hits = await index.search(['vs_main'], { query: 'how long do refunds take' });
    expect(hits[0]).toEqual({
      file_id: 'file-billing',
      filename: 'file-billing.txt',
      score: expect.any(Number),
      attributes: { team: 'finance', year: 2024, public: true },
      content: [{ type: 'text', text: 'Refunds for duplicate payments take five business days.' }],
    });
    for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.score).toBeLessThanOrEqual(1);
    expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
    expect(await index.storeInfo('vs_main')).toEqual({ embedderId: hash.id, dimensions: hash.dimensions, chunks: 8 });
    expect(await index.fileChunks('vs_main', 'file-pets')).toEqual(FILES['file-pets']);
  });

  it('finds exact identifiers and answers query arrays', async () => {
    await fill(index);
    const [hit] = await index.search(['vs_main'], { query: 'ERR_QUOTA_7731' });
    expect(hit!.content[0]!.text).toContain('ERR_QUOTA_7731');
    const hits = await index.search(['vs_main'], { query: ['kittens at night', 'flooded river'], maxNumResults: 2 });
    expect(hits.map((h) => h.file_id).sort()).toEqual(['file-pets', 'file-weather']);
  });

  it('honours maxNumResults, scoreThreshold, vector-only ranking, and validates options', async () => {
    await fill(index);
    expect(await index.search(['vs_main'], { query: 'days', maxNumResults: 3 })).toHaveLength(3);
    const all = await index.search(['vs_main'], { query: 'snow on the mountain road' });
    const cut = all[0]!.score - 0.0001;
    const kept = await index.search(['vs_main'], { query: 'snow on the mountain road', scoreThreshold: cut });
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.every((hit) => hit.score >= cut)).toBe(true);
    expect(kept.length).toBeLessThan(all.length);
    const vectorOnly = await index.search(['vs_main'], { query: 'snow on the mountain road', ranker: 'none' });
    expect(vectorOnly[0]!.file_id).toBe('file-weather');
    await expect(index.search(['vs_main'], { query: 'x', maxNumResults: 51 })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(index.search(['vs_main'], { query: 'x', maxNumResults: 0 })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(index.search(['vs_main'], { query: '  ' })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(index.search(['vs_main'], { query: 'x', scoreThreshold: 2 })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(index.search(['vs_main'], { query: 'x', filters: { type: 'eq', key: 'team' } as any })).rejects.toThrow(/filters.value/);
  });

  it.each([
    ['exact scan of the filtered chunks', 4096],
    ['HNSW, filtered in the graph worker', 0],
  ])('filters on attributes: comparisons, in/nin, nested and/or (%s)', async (_, exactSearchLimit) => {
    await index.close();
    index = new VectorIndex({ db, embedder: hash, dataDir: dir, log, exactSearchLimit });
    await fill(index);
    const files = async (filters: any) =>
      [
        ...new Set((await index.search(['vs_main'], { query: 'days hours month', filters, maxNumResults: 50 })).map((h) => h.file_id)),
      ].sort();
    expect(await files({ type: 'eq', key: 'team', value: 'finance' })).toEqual(['file-billing']);
    expect(await files({ type: 'ne', key: 'team', value: 'finance' })).toEqual(['file-errors', 'file-pets', 'file-weather']);
    expect(await files({ type: 'gte', key: 'year', value: 2024 })).toEqual(['file-billing', 'file-errors']);
    expect(await files({ type: 'lt', key: 'year', value: 2024 })).toEqual(['file-pets']);
    expect(await files({ type: 'in', key: 'team', value: ['home', 'platform'] })).toEqual(['file-errors', 'file-pets']);
    expect(await files({ type: 'nin', key: 'team', value: ['home', 'platform'] })).toEqual(['file-billing', 'file-weather']);
    expect(
      await files({
        type: 'or',
        filters: [
          {
            type: 'and',
            filters: [
              { type: 'eq', key: 'public', value: true },
              { type: 'gt', key: 'year', value: 2023 },
            ],
          },
          { type: 'eq', key: 'team', value: 'platform' },
        ],
      }),
    ).toEqual(['file-billing', 'file-errors']);
    expect(await files({ type: 'eq', key: 'team', value: 'nobody' })).toEqual([]);
    await index.setAttributes('vs_main', 'file-weather', { team: 'finance' });
    expect(await files({ type: 'eq', key: 'team', value: 'finance' })).toEqual(['file-billing', 'file-weather']);
  });

  it('removes files and replaces a file re-added with new chunks', async () => {
    await fill(index);
    await index.removeFile('vs_main', 'file-errors');
    const hits = await index.search(['vs_main'], { query: 'ERR_QUOTA_7731 quota exhausted', maxNumResults: 50 });
    expect(hits.some((hit) => hit.file_id === 'file-errors')).toBe(false);
    expect((await index.storeInfo('vs_main'))!.chunks).toBe(6);
    await addFile(index, 'vs_main', 'file-pets', ['Parrots can live for eighty years.']);
    expect(await index.fileChunks('vs_main', 'file-pets')).toEqual(['Parrots can live for eighty years.']);
    const pets = await index.search(['vs_main'], { query: 'kittens puppies parrots', maxNumResults: 50, ranker: 'none' });
    expect(pets.filter((hit) => hit.file_id === 'file-pets').map((hit) => hit.content[0]!.text)).toEqual([
      'Parrots can live for eighty years.',
    ]);
    expect((await index.storeInfo('vs_main'))!.chunks).toBe(5);
  });

  it('keeps stores apart and searches several together', async () => {
    await addFile(index, 'vs_a', 'file-1', ['Alpha store talks about kittens.']);
    await addFile(index, 'vs_b', 'file-2', ['Beta store talks about kittens too.']);
    expect((await index.search(['vs_a'], { query: 'kittens' })).map((h) => h.file_id)).toEqual(['file-1']);
    expect((await index.search(['vs_a', 'vs_b'], { query: 'kittens' })).map((h) => h.file_id).sort()).toEqual(['file-1', 'file-2']);
    expect(await index.search(['vs_missing'], { query: 'kittens' })).toEqual([]);
    await index.removeStore('vs_a');
    expect(await index.search(['vs_a', 'vs_b'], { query: 'kittens' })).toHaveLength(1);
    expect(await index.storeInfo('vs_a')).toBeNull();
  });

  it('remembers the embedder that built a store: hash stores stay queryable, others ask for a reindex', async () => {
    await fill(index, 'vs_hash');
    await index.close();
    index = open(new ReversedEmbedder());
    const hits = await index.search(['vs_hash'], { query: 'refunds for duplicate payments' });
    expect(hits[0]!.file_id).toBe('file-billing');
    await expect(addFile(index, 'vs_hash', 'file-x', ['more text'])).rejects.toBeInstanceOf(ConflictError);
    await addFile(index, 'vs_model', 'file-m', ['Refunds for duplicate payments take five business days.']);
    await index.close();

    index = open();
    const failure = await index.search(['vs_model'], { query: 'refunds' }).catch((error) => error);
    expect(failure).toBeInstanceOf(ConflictError);
    expect(failure.message).toMatch(/test:reversed.*fathom reindex vs_model/);
    const progress: number[] = [];
    expect(await index.reindex('vs_model', (done) => progress.push(done))).toEqual({ chunks: 1 });
    expect(progress).toEqual([1]);
    expect((await index.storeInfo('vs_model'))!.embedderId).toBe(hash.id);
    expect((await index.search(['vs_model'], { query: 'refunds' }))[0]!.file_id).toBe('file-m');
  });

  it('keeps the event loop free while the worker applies HNSW inserts', async () => {
    const words = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega orbit comet nebula quasar'.split(' ');
    const files = Array.from({ length: 40 }, (_, file) =>
      Array.from({ length: 100 }, (_, i) =>
        Array.from({ length: 12 }, (_, w) => `${words[(file * 7 + i * 3 + w * 5) % words.length]}${(i * w) % 97}`).join(' '),
      ),
    );
    const vectors = files.map((texts) => texts.map((text) => hash.embedOne(text)));
    for (const [file, texts] of files.entries()) {
      await index.addFileChunks({
        storeId: 'vs_big',
        fileId: `file-${file}`,
        filename: `${file}.txt`,
        attributes: null,
        chunks: texts.map((text, i) => ({ index: i, text, tokens: 12, vector: vectors[file]![i]! })),
      });
    }
    // addFileChunks returned with inserts still queued in the worker; the main thread keeps ticking meanwhile.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    await index.flush();
    const waited = performance.now() - started;
    clearInterval(timer);
    expect(waited).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(waited / 100);
    expect((await index.storeInfo('vs_big'))!.chunks).toBe(4000);
    const [hit] = await index.search(['vs_big'], { query: files[17]![42]!, ranker: 'none' });
    expect(hit!.content[0]!.text).toBe(files[17]![42]);
  });

  it('lets an emptied store adopt the current embedder', async () => {
    await addFile(index, 'vs_e', 'file-1', ['Some text about kittens.']);
    await index.removeFile('vs_e', 'file-1');
    await index.close();
    index = open(new ReversedEmbedder());
    await addFile(index, 'vs_e', 'file-2', ['Other text about puppies.']);
    expect(await index.storeInfo('vs_e')).toEqual({ embedderId: 'test:reversed', dimensions: hash.dimensions, chunks: 1 });
    expect((await index.search(['vs_e'], { query: 'puppies' }))[0]!.file_id).toBe('file-2');
  });
});
