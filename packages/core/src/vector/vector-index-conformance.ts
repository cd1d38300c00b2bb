/**
 * The conformance suite every VectorIndexContract passes: the SQLite `VectorIndex`, the PostgreSQL
 * `PgVectorIndex` and the documents tests' `FakeVectorIndex`. It checks what callers rely on — the
 * result shape, scores in 0..1 best first, option validation, thresholds, attribute filters, file and
 * store removal, exact counts, and that a store remembers the embedder that built it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HashEmbedder, type Embedder } from '../embeddings';
import { ConflictError, InvalidRequestError } from '../errors';
import type { AttributeFilter, VectorIndexContract, WriteFence } from './types';

/** One database for a test: `open(embedder)` opens an index over it (again, as after a restart); `close()` ends it all. */
export interface ConformanceDatabase {
  open(embedder: Embedder): Promise<VectorIndexContract>;
  close(): Promise<void>;
}

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

const ATTRIBUTES: Record<string, Record<string, string | number | boolean> | null> = {
  'file-billing': { team: 'finance', year: 2024, public: true },
  'file-errors': { team: 'platform', year: 2025, public: false },
  'file-pets': { team: 'home', year: 2023, public: true },
  'file-weather': null,
};

export function describeVectorIndexConformance(name: string, database: () => Promise<ConformanceDatabase>): void {
  describe(`${name} conforms to the VectorIndex contract`, () => {
    const opened: ConformanceDatabase[] = [];
    afterEach(async () => {
      for (const db of opened.splice(0)) await db.close();
    });

    async function setup(embedder: Embedder = hash) {
      const db = await database();
      opened.push(db);
      return { db, index: await db.open(embedder) };
    }

    async function addFile(
      index: VectorIndexContract,
      embedder: Embedder,
      storeId: string,
      fileId: string,
      texts: string[],
      attributes = ATTRIBUTES[fileId] ?? null,
    ) {
      const { embeddings } = await embedder.embed({ values: texts });
      await index.addFileChunks({
        storeId,
        fileId,
        filename: `${fileId}.txt`,
        attributes,
        chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
      });
    }

    async function fill(index: VectorIndexContract, storeId = 'vs_main', embedder: Embedder = hash) {
      for (const [fileId, texts] of Object.entries(FILES)) await addFile(index, embedder, storeId, fileId, texts);
    }

    it('finds added chunks in the search result shape, scored in 0..1 best first', async () => {
      const { index } = await setup();
      await fill(index);
      const hits = await index.search(['vs_main'], { query: 'how long do refunds for duplicate payments take' });
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
      expect(await index.fileChunks('vs_main', 'file-none')).toEqual([]);
    });

    it('publishes a fenced write only while its fence holds, and keeps the previous chunks otherwise', async () => {
      const { index } = await setup();
      if ('fenceHolds' in index) {
        // The fake has no database to ask: it answers the fence from its parameter.
        (index as { fenceHolds: (fence: WriteFence) => boolean }).fenceHolds = (fence) => fence.params[0] === 1;
      }
      const fence = (holds: boolean): WriteFence => ({ sql: 'SELECT 1 AS held WHERE ? = 1', params: [holds ? 1 : 0] });
      await fill(index);
      const write = (texts: string[], holds: boolean) =>
        hash.embed({ values: texts }).then(({ embeddings }) =>
          index.addFileChunks({
            storeId: 'vs_main',
            fileId: 'file-pets',
            filename: 'file-pets.txt',
            attributes: null,
            chunks: texts.map((text, i) => ({ index: i, text, tokens: hash.countTokens(text), vector: embeddings[i]! })),
            fence: fence(holds),
          }),
        );
      expect(await write(['Parrots repeat words they hear often.'], false)).toBe(false);
      expect(await index.fileChunks('vs_main', 'file-pets')).toEqual(FILES['file-pets']);
      expect((await index.storeInfo('vs_main'))?.chunks).toBe(8);
      expect((await index.search(['vs_main'], { query: 'kittens sleep sixteen hours' }))[0]!.file_id).toBe('file-pets');
      expect(await index.search(['vs_main'], { query: 'parrots repeat words', scoreThreshold: 0.5 })).toEqual([]);

      expect(await write(['Parrots repeat words they hear often.'], true)).toBe(true);
      expect(await index.fileChunks('vs_main', 'file-pets')).toEqual(['Parrots repeat words they hear often.']);
      expect((await index.storeInfo('vs_main'))?.chunks).toBe(7);
      expect((await index.search(['vs_main'], { query: 'parrots repeat words' }))[0]!.file_id).toBe('file-pets');
    });

    it('finds exact identifiers, answers query arrays and honours maxNumResults', async () => {
      const { index } = await setup();
      await fill(index);
      const [hit] = await index.search(['vs_main'], { query: 'ERR_QUOTA_7731' });
      expect(hit!.content[0]!.text).toContain('ERR_QUOTA_7731');
      const hits = await index.search(['vs_main'], { query: ['kittens sleep at night', 'heavy rain flooded the river'], maxNumResults: 2 });
      expect(hits.map((h) => h.file_id).sort()).toEqual(['file-pets', 'file-weather']);
      expect(await index.search(['vs_main'], { query: 'days', maxNumResults: 1 })).toHaveLength(1);
      const vectorOnly = await index.search(['vs_main'], { query: 'snow closed the mountain road', ranker: 'none' });
      expect(vectorOnly[0]!.file_id).toBe('file-weather');
    });

    it('drops results below scoreThreshold and validates options naming the field', async () => {
      const { index } = await setup();
      await fill(index);
      const all = await index.search(['vs_main'], { query: 'snow on the mountain road', maxNumResults: 50 });
      expect(all.length).toBeGreaterThan(1);
      const cut = all[0]!.score - 0.0001;
      const kept = await index.search(['vs_main'], { query: 'snow on the mountain road', scoreThreshold: cut, maxNumResults: 50 });
      expect(kept.length).toBeGreaterThanOrEqual(1);
      expect(kept.length).toBeLessThan(all.length);
      expect(kept.every((hit) => hit.score >= cut)).toBe(true);
      expect(await index.search(['vs_main'], { query: 'snow on the mountain road', scoreThreshold: 1 })).toEqual(
        all.filter((hit) => hit.score >= 1).slice(0, 10),
      );
      const invalid = (options: object) =>
        expect(index.search(['vs_main'], { query: 'x', ...options })).rejects.toBeInstanceOf(InvalidRequestError);
      await invalid({ maxNumResults: 51 });
      await invalid({ maxNumResults: 0 });
      await invalid({ query: '  ' });
      await invalid({ scoreThreshold: 2 });
      await expect(
        index.search(['vs_main'], { query: 'x', filters: { type: 'eq', key: 'team' } as unknown as AttributeFilter }),
      ).rejects.toThrow(/filters.value/);
    });

    it('filters on attributes: comparisons, in/nin, nested and/or, missing keys, and attribute updates', async () => {
      const { index } = await setup();
      await fill(index);
      const files = async (filters: AttributeFilter) =>
        [
          ...new Set(
            (await index.search(['vs_main'], { query: 'days hours month error night rain', filters, maxNumResults: 50 })).map(
              (h) => h.file_id,
            ),
          ),
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
      await index.setAttributes('vs_main', 'file-missing', { team: 'finance' });
      expect(await files({ type: 'eq', key: 'team', value: 'finance' })).toEqual(['file-billing', 'file-weather']);
    });

    it('removes files, replaces a re-added file as a whole, and keeps the chunk count exact', async () => {
      const { index } = await setup();
      await fill(index);
      await index.removeFile('vs_main', 'file-errors');
      await index.removeFile('vs_main', 'file-errors');
      const hits = await index.search(['vs_main'], { query: 'ERR_QUOTA_7731 quota exhausted', maxNumResults: 50 });
      expect(hits.some((hit) => hit.file_id === 'file-errors')).toBe(false);
      expect((await index.storeInfo('vs_main'))!.chunks).toBe(6);
      await addFile(index, hash, 'vs_main', 'file-pets', ['Parrots can live for eighty years.']);
      expect(await index.fileChunks('vs_main', 'file-pets')).toEqual(['Parrots can live for eighty years.']);
      const pets = await index.search(['vs_main'], { query: 'kittens puppies parrots', maxNumResults: 50 });
      expect(pets.filter((hit) => hit.file_id === 'file-pets').map((hit) => hit.content[0]!.text)).toEqual([
        'Parrots can live for eighty years.',
      ]);
      expect((await index.storeInfo('vs_main'))!.chunks).toBe(5);
    });

    it('keeps stores apart, searches several together, and drops a whole store', async () => {
      const { index } = await setup();
      await addFile(index, hash, 'vs_a', 'file-1', ['Alpha store talks about kittens.']);
      await addFile(index, hash, 'vs_b', 'file-2', ['Beta store talks about kittens too.']);
      expect((await index.search(['vs_a'], { query: 'kittens' })).map((h) => h.file_id)).toEqual(['file-1']);
      expect((await index.search(['vs_a', 'vs_b'], { query: 'kittens' })).map((h) => h.file_id).sort()).toEqual(['file-1', 'file-2']);
      expect(await index.search(['vs_missing'], { query: 'kittens' })).toEqual([]);
      expect(await index.search([], { query: 'kittens' })).toEqual([]);
      await index.removeStore('vs_a');
      expect((await index.search(['vs_a', 'vs_b'], { query: 'kittens' })).map((h) => h.file_id)).toEqual(['file-2']);
      expect(await index.storeInfo('vs_a')).toBeNull();
    });

    it('counts every chunk of files added concurrently', async () => {
      const { index } = await setup();
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          addFile(index, hash, 'vs_busy', `file-${i}`, [`Report number ${i} about topic ${i}.`, `Second page of report ${i}.`], { n: i }),
        ),
      );
      expect((await index.storeInfo('vs_busy'))!.chunks).toBe(24);
      const hits = await index.search(['vs_busy'], { query: 'report', maxNumResults: 50 });
      expect(new Set(hits.map((hit) => hit.file_id)).size).toBe(12);
    });

    it('remembers the embedder that built a store: others ask for a reindex, which re-embeds it', async () => {
      const { db, index: reversed } = await setup(new ReversedEmbedder());
      await fill(reversed, 'vs_model', new ReversedEmbedder());
      await addFile(reversed, new ReversedEmbedder(), 'vs_empty', 'file-1', ['Temporary text.']);
      await reversed.removeFile('vs_empty', 'file-1');
      await reversed.close();
      const index = await db.open(hash);
      expect(await index.storesNotBuiltWith(hash.id)).toEqual(['vs_empty', 'vs_model']);
      const failure = await index.search(['vs_model'], { query: 'refunds' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConflictError);
      await expect(addFile(index, hash, 'vs_model', 'file-x', ['more text'])).rejects.toBeInstanceOf(ConflictError);
      // An emptied store adopts the current embedder.
      await addFile(index, hash, 'vs_empty', 'file-2', ['Other text about puppies.']);
      expect(await index.storeInfo('vs_empty')).toEqual({ embedderId: hash.id, dimensions: hash.dimensions, chunks: 1 });
      expect(await index.reindex('vs_model')).toEqual({ chunks: 8 });
      expect((await index.storeInfo('vs_model'))!.embedderId).toBe(hash.id);
      expect(await index.storesNotBuiltWith(hash.id)).toEqual([]);
      expect((await index.search(['vs_model'], { query: 'refunds for duplicate payments' }))[0]!.file_id).toBe('file-billing');
      expect(await index.reindex('vs_none')).toEqual({ chunks: 0 });
    });
  });
}
