import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { openDatabase, type Database } from '../db';
import { silentLogger } from '../internal/logger';
import { FakeVectorIndex, fakeEmbedder } from './__fixtures__/fakes';
import { makePdf } from './__fixtures__/make-documents';
import { Documents } from './documents';
import { documentsSchema } from './schema';

const text = (s: string) => new TextEncoder().encode(s);
const open: Array<{ documents: Documents; db: Database }> = [];

function setup(dataDir = mkdtempSync(join(tmpdir(), 'fathom-docs-')), start = true) {
  const db = openDatabase({ location: join(dataDir, 'fathom.db'), schemas: [documentsSchema] });
  const index = new FakeVectorIndex();
  const embedder = fakeEmbedder();
  const documents = new Documents({ db, config: loadConfig({}, { dataDir }), embedder, vectorIndex: index, log: silentLogger });
  if (start) documents.start();
  open.push({ documents, db });
  return { documents, index, embedder, db, dataDir };
}

afterEach(async () => {
  for (const { documents, db } of open.splice(0)) {
    await documents.close();
    db.close();
  }
});

describe('Documents', () => {
  it('ingests the files given at store creation and keeps exact counts and usage', async () => {
    const { documents, index } = setup();
    const a = documents.createFile('acct_a', {
      filename: 'otters.txt',
      purpose: 'assistants',
      data: text('Sea otters hold hands while sleeping.'),
    });
    const b = documents.createFile('acct_a', {
      filename: 'report.pdf',
      purpose: 'assistants',
      data: await makePdf(['Invoice number INV-2291']),
    });
    const store = documents.createStore('acct_a', { name: 'docs', file_ids: [a.id, b.id] });
    expect(store.file_counts).toEqual({ in_progress: 2, completed: 0, failed: 0, cancelled: 0, total: 2 });
    expect(store.status).toBe('in_progress');
    expect(await documents.waitForIngestion('acct_a', [store.id], 20_000)).toBe(true);
    const done = documents.getStore('acct_a', store.id);
    expect(done.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });
    expect(done.status).toBe('completed');
    const files = documents.listStoreFiles('acct_a', store.id, {}).data;
    expect(done.usage_bytes).toBe(files.reduce((n, f) => n + f.usage_bytes, 0));
    expect(done.usage_bytes).toBeGreaterThan(0);
    expect(index.fileChunks(store.id, b.id).join(' ')).toContain('INV-2291');
    const hits = await documents.search('acct_a', [store.id], { query: 'otters sleeping' });
    expect(hits[0]).toMatchObject({ file_id: a.id, filename: 'otters.txt' });
  });

  it('fails bad files with a code and message and leaves the queue moving', async () => {
    const { documents } = setup();
    const bad = documents.createFile('acct_a', { filename: 'broken.pdf', purpose: 'assistants', data: text('%PDF-1.7 nonsense') });
    const empty = documents.createFile('acct_a', { filename: 'blank.md', purpose: 'assistants', data: text('   \n') });
    const good = documents.createFile('acct_a', { filename: 'ok.md', purpose: 'assistants', data: text('# fine') });
    const store = documents.createStore('acct_a', { file_ids: [bad.id, empty.id, good.id] });
    await documents.waitForIngestion('acct_a', [store.id], 20_000);
    expect(documents.getStoreFile('acct_a', store.id, bad.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'invalid_file', message: expect.stringMatching(/PDF is corrupt/) },
    });
    expect(documents.getStoreFile('acct_a', store.id, empty.id).last_error).toEqual({
      code: 'invalid_file',
      message: 'file contains no text',
    });
    expect(documents.getStoreFile('acct_a', store.id, good.id).status).toBe('completed');
    expect(
      documents
        .listStoreFiles('acct_a', store.id, { filter: 'failed' })
        .data.map((f) => f.id)
        .sort(),
    ).toEqual([bad.id, empty.id].sort());
  });

  it('answers 404 for another account’s files, stores, store files and search', async () => {
    const { documents } = setup();
    const file = documents.createFile('acct_a', { filename: 'a.txt', purpose: 'assistants', data: text('alpha') });
    const store = documents.createStore('acct_a', { file_ids: [file.id] });
    expect(() => documents.getFile('acct_b', file.id)).toThrow(`No file found with id '${file.id}'.`);
    expect(() => documents.getStore('acct_b', store.id)).toThrow(/No vector store found/);
    expect(() => documents.getStoreFile('acct_b', store.id, file.id)).toThrow(/No vector store found/);
    expect(() => documents.createStore('acct_b', { file_ids: [file.id] })).toThrow(/No file found/);
    await expect(documents.search('acct_b', [store.id], { query: 'alpha' })).rejects.toMatchObject({ status: 404 });
    await expect(documents.waitForIngestion('acct_b', [store.id], 10)).rejects.toMatchObject({ status: 404 });
  });

  it('deleting a file removes its chunks from every store and updates counts', async () => {
    const { documents, index } = setup();
    const file = documents.createFile('acct_a', { filename: 'shared.txt', purpose: 'assistants', data: text('shared words here') });
    const one = documents.createStore('acct_a', { file_ids: [file.id] });
    const two = documents.createStore('acct_a', { file_ids: [file.id] });
    await documents.waitForIngestion('acct_a', [one.id, two.id], 20_000);
    expect(index.fileChunks(two.id, file.id)).toHaveLength(1);
    await documents.deleteFile('acct_a', file.id);
    for (const store of [one, two]) {
      expect(documents.getStore('acct_a', store.id)).toMatchObject({ usage_bytes: 0, file_counts: { total: 0, completed: 0 } });
      expect(index.fileChunks(store.id, file.id)).toEqual([]);
    }
    expect(() => documents.getFile('acct_a', file.id)).toThrow(/No file found/);
  });

  it('keeps counts exact under many concurrent adds', async () => {
    const { documents } = setup();
    const store = documents.createStore('acct_a', { name: 'busy' });
    const files = Array.from({ length: 40 }, (_, i) =>
      documents.createFile('acct_a', { filename: `f${i}.txt`, purpose: 'assistants', data: text(`file number ${i}`) }),
    );
    await Promise.all(files.map(async (file) => documents.addStoreFile('acct_a', store.id, { file_id: file.id })));
    const counts = documents.getStore('acct_a', store.id).file_counts;
    expect(counts.total).toBe(40);
    expect(counts.in_progress + counts.completed).toBe(40);
    await documents.waitForIngestion('acct_a', [store.id], 30_000);
    expect(documents.getStore('acct_a', store.id).file_counts).toEqual({
      in_progress: 0,
      completed: 40,
      failed: 0,
      cancelled: 0,
      total: 40,
    });
  });

  it('cancels a batch: files still queued end cancelled and the batch reports it', async () => {
    const { documents } = setup(undefined, false); // queue not started: everything stays queued
    const store = documents.createStore('acct_a', {});
    const ids = Array.from(
      { length: 3 },
      (_, i) => documents.createFile('acct_a', { filename: `b${i}.txt`, purpose: 'assistants', data: text(`batch ${i}`) }).id,
    );
    const batch = documents.createBatch('acct_a', store.id, { file_ids: ids, attributes: { team: 'red' } });
    expect(batch).toMatchObject({ object: 'vector_store.files_batch', status: 'in_progress', file_counts: { in_progress: 3, total: 3 } });
    const cancelled = documents.cancelBatch('acct_a', store.id, batch.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', file_counts: { cancelled: 3, in_progress: 0, total: 3 } });
    expect(documents.listBatchFiles('acct_a', store.id, batch.id, {}).data.map((f) => f.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(documents.getStoreFile('acct_a', store.id, ids[0]!).attributes).toEqual({ team: 'red' });
  });

  it('resumes files left in_progress when it starts again on the same data', async () => {
    const first = setup(undefined, false);
    const file = first.documents.createFile('acct_a', {
      filename: 'later.txt',
      purpose: 'assistants',
      data: text('resumed after restart'),
    });
    const store = first.documents.createStore('acct_a', { file_ids: [file.id] });
    await first.documents.close();
    first.db.close();
    open.splice(
      open.findIndex((entry) => entry.documents === first.documents),
      1,
    );
    const second = setup(first.dataDir);
    expect(await second.documents.waitForIngestion('acct_a', [store.id], 20_000)).toBe(true);
    expect(second.documents.getStoreFile('acct_a', store.id, file.id).status).toBe('completed');
    expect(second.index.fileChunks(store.id, file.id)).toEqual(['resumed after restart']);
  });

  it('validates attributes, chunking and batch input naming the field', () => {
    const { documents } = setup(undefined, false);
    const store = documents.createStore('acct_a', {});
    const file = documents.createFile('acct_a', { filename: 'x.txt', purpose: 'assistants', data: text('x') });
    expect(() => documents.addStoreFile('acct_a', store.id, { file_id: file.id, attributes: { k: { nested: 1 } } })).toThrow(
      /'attributes.k'/,
    );
    expect(() =>
      documents.addStoreFile('acct_a', store.id, {
        file_id: file.id,
        chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 50, chunk_overlap_tokens: 0 } },
      }),
    ).toThrow(/max_chunk_size_tokens/);
    expect(() => documents.createBatch('acct_a', store.id, {})).toThrow(/'file_ids'/);
    expect(() => documents.createBatch('acct_a', store.id, { file_ids: ['file-nope'] })).toThrow(/No file found with id 'file-nope'/);
    expect(() => documents.createFile('acct_a', { filename: 'y.txt', purpose: 'nonsense', data: text('y') })).toThrow(/'purpose'/);
  });

  it('gives up on a file whose ingestion was interrupted three times (a file that crashes the process)', async () => {
    const { documents, db } = setup(undefined, false);
    const file = documents.createFile('acct_a', { filename: 'crashy.txt', purpose: 'assistants', data: text('crash') });
    const store = documents.createStore('acct_a', { file_ids: [file.id] });
    db.prepare('UPDATE vector_store_files SET attempts = 3').run();
    documents.start();
    await documents.waitForIngestion('acct_a', [store.id], 10_000);
    expect(documents.getStoreFile('acct_a', store.id, file.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'server_error', message: expect.stringMatching(/interrupted 3 times/) },
    });
  });
});
