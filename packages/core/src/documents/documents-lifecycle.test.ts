import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { FakeVectorIndex, fakeEmbedder } from './__fixtures__/fakes';
import { DocumentsCapability } from './documents-capability';
import { lexicalRewrite, modelQueryRewriter } from './query-rewrite';
import { documentsSchema } from './schema';

const text = (s: string) => new TextEncoder().encode(s);

afterAll(closeTestPostgres);

describe('lexical query rewrite', () => {
  it('keeps the content words in order, once, without stop words or question framing', () => {
    expect(lexicalRewrite("I'd like to know how tall the main office building is")).toBe('tall main office building');
    expect(lexicalRewrite('What is the refund policy for duplicate payments? Refund please!')).toBe('refund policy duplicate payments');
    expect(lexicalRewrite('Why does ERR_QUOTA_7731 happen in "billing service" v2.3?')).toBe(
      'ERR_QUOTA_7731 happen "billing service" v2.3',
    );
    expect(lexicalRewrite('what is it?')).toBe('what is it?');
  });

  it('a model rewrite uses the answer and falls back to the lexical rewrite when the model fails or rambles', async () => {
    const errors: unknown[] = [];
    const answering = modelQueryRewriter(async (messages) => {
      expect(messages.at(-1)).toEqual({ role: 'user', content: 'how long do refunds take?' });
      return '"refund duration"\n';
    });
    expect(await answering('how long do refunds take?')).toBe('refund duration');
    const failing = modelQueryRewriter(
      async () => {
        throw new Error('upstream down');
      },
      (error) => errors.push(error),
    );
    expect(await failing('how long do refunds take?')).toBe('long refunds take');
    expect(errors).toHaveLength(1);
    const rambling = modelQueryRewriter(async () => 'x'.repeat(500));
    expect(await rambling('refund time')).toBe('refund time');
  });
});

describe.each(testBackends())('Documents lifecycle on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function shared() {
    const database = await sharedTestDatabase(backend, [documentsSchema]);
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-lifecycle-'));
    cleanups.push(async () => {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const errors: string[] = [];
    const log: Logger = { info() {}, warn() {}, error: (message) => errors.push(message) };
    const open = async (index = new FakeVectorIndex(), rewriteQuery?: (query: string) => Promise<string>) => {
      const db = await database.open();
      const documents = new DocumentsCapability({
        db,
        config: loadConfig({ FATHOM_DOCUMENTS_SWEEP_SECONDS: '3600' }, { dataDir }),
        embedder: fakeEmbedder(),
        vectorIndex: index,
        log,
        rewriteQuery,
      });
      cleanups.push(() => documents.close());
      return { documents, db, index };
    };
    return { open, errors };
  }

  it('expires_after sets expires_at; an expired file answers 404 at once and the sweep of any node deletes it everywhere', async () => {
    const { open } = await shared();
    const a = await open();
    const b = await open(a.index);
    const file = await a.documents.files.create('acct', {
      filename: 'temp.txt',
      purpose: 'assistants',
      file: text('temporary words'),
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    expect(file.expires_at).toBe(file.created_at + 3600);
    const kept = await a.documents.files.create('acct', { filename: 'kept.txt', purpose: 'assistants', file: text('kept words') });
    // The SDK types `expires_at` optional, not nullable: a file that does not expire has none.
    expect(kept).not.toHaveProperty('expires_at');
    const store = await a.documents.vectorStores.create('acct', { file_ids: [file.id, kept.id] });
    a.documents.start();
    expect(await a.documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    // An hour later (the row says so): gone for reads at once, then deleted by a sweep on another node.
    await a.db.run('UPDATE files SET expires_at = ? WHERE id = ?', [nowSeconds() - 1, file.id]);
    await expect(a.documents.files.retrieve('acct', file.id)).rejects.toMatchObject({ status: 404 });
    expect((await a.documents.files.list('acct', {})).data.map((row) => row.id)).toEqual([kept.id]);
    await Promise.all([b.documents.core.sweep(), a.documents.core.sweep()]);
    expect(await a.db.get('SELECT COUNT(*) AS n FROM files WHERE id = ?', [file.id])).toEqual({ n: 0 });
    await expect(a.documents.core.repos.blobs.open(file.id)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await a.documents.vectorStores.retrieve('acct', store.id)).file_counts).toMatchObject({ completed: 1, total: 1 });
    expect(await a.index.fileChunks(store.id, file.id)).toEqual([]);
    expect(await a.index.fileChunks(store.id, kept.id)).toEqual(['kept words']);
  });

  it('an index removal that fails is logged, stays recorded, and the sweep removes the orphaned chunks', async () => {
    const { open, errors } = await shared();
    const index = new FakeVectorIndex();
    const { documents, db } = await open(index);
    documents.start();
    const file = await documents.files.create('acct', { filename: 'orphan.txt', purpose: 'assistants', file: text('orphan words') });
    const store = await documents.vectorStores.create('acct', { file_ids: [file.id] });
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    const remove = index.removeFile.bind(index);
    let failures = 1;
    index.removeFile = async (storeId, fileId) => {
      if (failures-- > 0) throw new Error('index unavailable');
      return remove(storeId, fileId);
    };
    await documents.vectorStores.files.delete('acct', store.id, file.id);
    expect(
      errors.some((message) => /could not remove the chunks of .* retried by the periodic sweep: index unavailable/.test(message)),
    ).toBe(true);
    expect(await index.fileChunks(store.id, file.id)).toEqual(['orphan words']);
    expect(await db.get('SELECT COUNT(*) AS n FROM index_removals')).toEqual({ n: 1 });
    // The sweep picks removals older than its grace period; the row says this one is old enough.
    await db.run('UPDATE index_removals SET requested_at = ?', [Date.now() - 3_600_000]);
    await documents.core.sweep();
    expect(await index.fileChunks(store.id, file.id)).toEqual([]);
    expect(await db.get('SELECT COUNT(*) AS n FROM index_removals')).toEqual({ n: 0 });
  });

  it('a pending removal of a file added again is dropped, not applied to the new chunks', async () => {
    const { open } = await shared();
    const index = new FakeVectorIndex();
    const { documents, db } = await open(index);
    documents.start();
    const file = await documents.files.create('acct', { filename: 'back.txt', purpose: 'assistants', file: text('back again') });
    const store = await documents.vectorStores.create('acct', {});
    await db.run('INSERT INTO index_removals (store_id, file_id, requested_at) VALUES (?, ?, ?)', [store.id, file.id, 1]);
    await documents.vectorStores.files.create('acct', store.id, { file_id: file.id });
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    expect(await db.get('SELECT COUNT(*) AS n FROM index_removals')).toEqual({ n: 0 });
    await db.run('INSERT INTO index_removals (store_id, file_id, requested_at) VALUES (?, ?, ?)', [store.id, file.id, 1]);
    await documents.core.sweep();
    expect(await index.fileChunks(store.id, file.id)).toEqual(['back again']);
    expect(await db.get('SELECT COUNT(*) AS n FROM index_removals')).toEqual({ n: 0 });
  });

  it('rewrite_query searches the rewritten query and says so in search_query', async () => {
    const { open } = await shared();
    const asked: string[] = [];
    const { documents } = await open(new FakeVectorIndex(), async (query) => {
      asked.push(query);
      return 'otters sleeping';
    });
    documents.start();
    const file = await documents.files.create('acct', {
      filename: 'o.txt',
      purpose: 'assistants',
      file: text('Sea otters hold hands while sleeping.'),
    });
    const store = await documents.vectorStores.create('acct', { file_ids: [file.id] });
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    const question = 'Could you please tell me whether the marine mammals rest?';
    const plain = await documents.vectorStores.search('acct', store.id, { query: question });
    expect(plain).toMatchObject({ search_query: [question], data: [] });
    const rewritten = await documents.vectorStores.search('acct', store.id, { query: question, rewrite_query: true });
    expect(rewritten.search_query).toEqual(['otters sleeping']);
    expect(rewritten.data.map((hit) => hit.file_id)).toEqual([file.id]);
    expect(asked).toEqual([question]);
  });
});
