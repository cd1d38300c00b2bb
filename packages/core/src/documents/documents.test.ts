import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text as readText } from 'node:stream/consumers';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { silentLogger } from '../internal/logger';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { FakeVectorIndex, fakeEmbedder } from './__fixtures__/fakes';
import { makePdf } from './__fixtures__/make-documents';
import { DocumentsCapability } from './documents-capability';
import { documentsSchema } from './schema';

const text = (s: string) => new TextEncoder().encode(s);

afterAll(closeTestPostgres);

describe.each(testBackends())('Documents on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A database with a data dir; `open()` starts a Documents on it (as a process would), closed after the test. */
  async function shared() {
    const database = await sharedTestDatabase(backend, [documentsSchema]);
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-docs-'));
    cleanups.push(async () => {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const open = async (options: { start?: boolean; index?: FakeVectorIndex; env?: Record<string, string> } = {}) => {
      const db: SqlDatabase = await database.open();
      const index = options.index ?? new FakeVectorIndex();
      const documents = new DocumentsCapability({
        db,
        config: loadConfig({ FATHOM_LEASE_SECONDS: '2', ...options.env }, { dataDir }),
        embedder: fakeEmbedder(),
        vectorIndex: index,
        log: silentLogger,
      });
      if (options.start !== false) documents.start();
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await documents.close();
        await db.close();
      };
      cleanups.push(close);
      return { documents, index, db, close };
    };
    return { open, dataDir };
  }

  const setup = async (start = true) => (await shared()).open({ start });

  it('ingests the files given at store creation and keeps exact counts and usage', async () => {
    const { documents, index } = await setup();
    const a = await documents.files.create('acct_a', {
      filename: 'otters.txt',
      purpose: 'assistants',
      file: text('Sea otters hold hands while sleeping.'),
    });
    const b = await documents.files.create('acct_a', {
      filename: 'report.pdf',
      purpose: 'assistants',
      file: await makePdf(['Invoice number INV-2291']),
    });
    const store = await documents.vectorStores.create('acct_a', { name: 'docs', file_ids: [a.id, b.id] });
    expect(store.file_counts.total).toBe(2);
    expect(store.file_counts.in_progress + store.file_counts.completed).toBe(2);
    expect(await documents.waitForIngestion('acct_a', [store.id], 20_000)).toBe(true);
    const done = await documents.vectorStores.retrieve('acct_a', store.id);
    expect(done.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 0, cancelled: 0, total: 2 });
    expect(done.status).toBe('completed');
    const files = (await documents.vectorStores.files.list('acct_a', store.id, {})).data;
    expect(done.usage_bytes).toBe(files.reduce((n, f) => n + f.usage_bytes, 0));
    expect(done.usage_bytes).toBeGreaterThan(0);
    expect((await index.fileChunks(store.id, b.id)).join(' ')).toContain('INV-2291');
    const hits = await documents.search('acct_a', [store.id], { query: 'otters sleeping' });
    expect(hits[0]).toMatchObject({ file_id: a.id, filename: 'otters.txt' });
    // The bytes come back exactly (from the data dir on SQLite, from the database on PostgreSQL).
    const { file, stream } = await documents.files.content('acct_a', a.id);
    expect(file.bytes).toBe(37);
    expect(await readText(stream)).toBe('Sea otters hold hands while sleeping.');
  });

  it('fails bad files with a code and message and leaves the queue moving', async () => {
    const { documents } = await setup();
    const bad = await documents.files.create('acct_a', { filename: 'broken.pdf', purpose: 'assistants', file: text('%PDF-1.7 nonsense') });
    const empty = await documents.files.create('acct_a', { filename: 'blank.md', purpose: 'assistants', file: text('   \n') });
    const good = await documents.files.create('acct_a', { filename: 'ok.md', purpose: 'assistants', file: text('# fine') });
    const store = await documents.vectorStores.create('acct_a', { file_ids: [bad.id, empty.id, good.id] });
    await documents.waitForIngestion('acct_a', [store.id], 20_000);
    expect(await documents.vectorStores.files.retrieve('acct_a', store.id, bad.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'invalid_file', message: expect.stringMatching(/PDF is corrupt/) },
    });
    expect((await documents.vectorStores.files.retrieve('acct_a', store.id, empty.id)).last_error).toEqual({
      code: 'invalid_file',
      message: 'file contains no text',
    });
    expect((await documents.vectorStores.files.retrieve('acct_a', store.id, good.id)).status).toBe('completed');
    expect((await documents.vectorStores.files.list('acct_a', store.id, { filter: 'failed' })).data.map((f) => f.id).sort()).toEqual(
      [bad.id, empty.id].sort(),
    );
  });

  it('answers 404 for another account’s files, stores, store files and search', async () => {
    const { documents } = await setup();
    const file = await documents.files.create('acct_a', { filename: 'a.txt', purpose: 'assistants', file: text('alpha') });
    const store = await documents.vectorStores.create('acct_a', { file_ids: [file.id] });
    await expect(documents.files.retrieve('acct_b', file.id)).rejects.toThrow(`No file found with id '${file.id}'.`);
    await expect(documents.files.content('acct_b', file.id)).rejects.toThrow(/No file found/);
    await expect(documents.vectorStores.retrieve('acct_b', store.id)).rejects.toThrow(/No vector store found/);
    await expect(documents.vectorStores.files.retrieve('acct_b', store.id, file.id)).rejects.toThrow(/No vector store found/);
    await expect(documents.vectorStores.create('acct_b', { file_ids: [file.id] })).rejects.toThrow(/No file found/);
    await expect(documents.files.delete('acct_b', file.id)).rejects.toMatchObject({ status: 404 });
    await expect(documents.search('acct_b', [store.id], { query: 'alpha' })).rejects.toMatchObject({ status: 404 });
    await expect(documents.waitForIngestion('acct_b', [store.id], 10)).rejects.toMatchObject({ status: 404 });
  });

  it('deleting a file removes its bytes and its chunks from every store and updates counts', async () => {
    const { documents, index } = await setup();
    const file = await documents.files.create('acct_a', { filename: 'shared.txt', purpose: 'assistants', file: text('shared words here') });
    const one = await documents.vectorStores.create('acct_a', { file_ids: [file.id] });
    const two = await documents.vectorStores.create('acct_a', { file_ids: [file.id] });
    await documents.waitForIngestion('acct_a', [one.id, two.id], 20_000);
    expect(await index.fileChunks(two.id, file.id)).toHaveLength(1);
    await documents.files.delete('acct_a', file.id);
    for (const store of [one, two]) {
      expect(await documents.vectorStores.retrieve('acct_a', store.id)).toMatchObject({
        usage_bytes: 0,
        file_counts: { total: 0, completed: 0 },
      });
      expect(await index.fileChunks(store.id, file.id)).toEqual([]);
    }
    await expect(documents.files.retrieve('acct_a', file.id)).rejects.toThrow(/No file found/);
    await expect(documents.core.repos.blobs.open(file.id)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps counts exact under many concurrent adds', async () => {
    const { documents } = await setup();
    const store = await documents.vectorStores.create('acct_a', { name: 'busy' });
    const files = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        documents.files.create('acct_a', { filename: `f${i}.txt`, purpose: 'assistants', file: text(`file number ${i}`) }),
      ),
    );
    await Promise.all(files.map((file) => documents.vectorStores.files.create('acct_a', store.id, { file_id: file.id })));
    const counts = (await documents.vectorStores.retrieve('acct_a', store.id)).file_counts;
    expect(counts.total).toBe(40);
    expect(counts.in_progress + counts.completed).toBe(40);
    await documents.waitForIngestion('acct_a', [store.id], 30_000);
    expect((await documents.vectorStores.retrieve('acct_a', store.id)).file_counts).toEqual({
      in_progress: 0,
      completed: 40,
      failed: 0,
      cancelled: 0,
      total: 40,
    });
  });

  it('cancels a batch: files still queued end cancelled and the batch reports it', async () => {
    const { documents } = await setup(false); // queue not started: everything stays queued
    const store = await documents.vectorStores.create('acct_a', {});
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await documents.files.create('acct_a', { filename: `b${i}.txt`, purpose: 'assistants', file: text(`batch ${i}`) })).id);
    }
    const batch = await documents.vectorStores.fileBatches.create('acct_a', store.id, { file_ids: ids, attributes: { team: 'red' } });
    expect(batch).toMatchObject({ object: 'vector_store.files_batch', status: 'in_progress', file_counts: { in_progress: 3, total: 3 } });
    const cancelled = await documents.vectorStores.fileBatches.cancel('acct_a', store.id, batch.id);
    expect(cancelled).toMatchObject({ status: 'cancelled', file_counts: { cancelled: 3, in_progress: 0, total: 3 } });
    expect((await documents.vectorStores.fileBatches.listFiles('acct_a', store.id, batch.id, {})).data.map((f) => f.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect((await documents.vectorStores.files.retrieve('acct_a', store.id, ids[0]!)).attributes).toEqual({ team: 'red' });
    expect(await documents.vectorStores.fileBatches.retrieve('acct_a', store.id, batch.id)).toMatchObject({ status: 'cancelled' });
  });

  it('resumes files left in_progress when it starts again on the same data', async () => {
    const { open } = await shared();
    const first = await open({ start: false });
    const file = await first.documents.files.create('acct_a', {
      filename: 'later.txt',
      purpose: 'assistants',
      file: text('resumed after restart'),
    });
    const store = await first.documents.vectorStores.create('acct_a', { file_ids: [file.id] });
    await first.close();
    const second = await open();
    expect(await second.documents.waitForIngestion('acct_a', [store.id], 20_000)).toBe(true);
    expect((await second.documents.vectorStores.files.retrieve('acct_a', store.id, file.id)).status).toBe('completed');
    expect(await second.index.fileChunks(store.id, file.id)).toEqual(['resumed after restart']);
  });

  it('checks what the schema cannot: overlap within half the size, one of file_ids or files, files that exist', async () => {
    // Types, ranges and lengths are the declared schema's (checked at the edge); these rules are core's.
    const { documents } = await setup(false);
    const store = await documents.vectorStores.create('acct_a', {});
    const file = await documents.files.create('acct_a', { filename: 'x.txt', purpose: 'assistants', file: text('x') });
    const overlapping = { type: 'static' as const, static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } };
    await expect(
      documents.vectorStores.files.create('acct_a', store.id, { file_id: file.id, chunking_strategy: overlapping }),
    ).rejects.toMatchObject({ status: 400, param: 'chunking_strategy.static.chunk_overlap_tokens', message: /must not exceed half/ });
    await expect(
      documents.vectorStores.fileBatches.create('acct_a', store.id, {
        files: [{ file_id: file.id }, { file_id: file.id, chunking_strategy: overlapping }],
      }),
    ).rejects.toMatchObject({ param: 'files[1].chunking_strategy.static.chunk_overlap_tokens' });
    await expect(documents.vectorStores.fileBatches.create('acct_a', store.id, {})).rejects.toMatchObject({ param: 'file_ids' });
    await expect(
      documents.vectorStores.fileBatches.create('acct_a', store.id, { file_ids: [file.id], files: [{ file_id: file.id }] }),
    ).rejects.toThrow("Provide either 'file_ids' or 'files', not both.");
    await expect(documents.vectorStores.fileBatches.create('acct_a', store.id, { file_ids: ['file-nope'] })).rejects.toThrow(
      /No file found with id 'file-nope'/,
    );
    await expect(
      documents.vectorStores.fileBatches.create('acct_a', store.id, { files: [{ file_id: file.id }, { file_id: 'file-nope' }] }),
    ).rejects.toMatchObject({ status: 404, param: 'files[1].file_id' });
    expect((await documents.vectorStores.retrieve('acct_a', store.id)).file_counts.total).toBe(0);
  });

  it('gives up on a file whose ingestion was interrupted three times (a file that crashes the process)', async () => {
    const { documents, db } = await setup(false);
    const file = await documents.files.create('acct_a', { filename: 'crashy.txt', purpose: 'assistants', file: text('crash') });
    const store = await documents.vectorStores.create('acct_a', { file_ids: [file.id] });
    await db.run('UPDATE vector_store_files SET attempts = 3');
    documents.start();
    await documents.waitForIngestion('acct_a', [store.id], 10_000);
    expect(await documents.vectorStores.files.retrieve('acct_a', store.id, file.id)).toMatchObject({
      status: 'failed',
      last_error: { code: 'server_error', message: expect.stringMatching(/interrupted 3 times/) },
    });
  });
});
