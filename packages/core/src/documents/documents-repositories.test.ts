import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { createDocumentsRepositories, type DocumentsRepositories } from './documents-repositories';
import { BLOB_PART_BYTES } from './file-blobs';
import { documentsSchema } from './schema';
import type { StoreFileRow } from './store-files-repository';

afterAll(closeTestPostgres);

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const chunking = { max_chunk_size_tokens: 400, chunk_overlap_tokens: 100 };
let runs = 0;
const runId = () => `ing_test_${++runs}`;

describe.each(testBackends())('documents repositories on %s', (backend) => {
  async function setup(): Promise<{ db: SqlDatabase; repos: DocumentsRepositories; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-docs-repo-'));
    dirs.push(dir);
    const db = await openTestDatabase(backend, [documentsSchema]);
    return { db, repos: createDocumentsRepositories(db, { dataDir: dir }), dir };
  }

  const file = (id: string, accountId = 'acct_a', extra: Partial<{ purpose: string; expires_at: number | null }> = {}) => ({
    id,
    account_id: accountId,
    filename: `${id}.txt`,
    purpose: extra.purpose ?? 'assistants',
    bytes: 10,
    created_at: 1_700_000_000,
    expires_at: extra.expires_at ?? null,
  });

  async function store(repos: DocumentsRepositories, id: string, accountId = 'acct_a', name: string | null = null) {
    await repos.stores.insert({
      id,
      account_id: accountId,
      name,
      description: null,
      metadata: null,
      expires_after_days: null,
      embedder: 'hash:v1',
      last_active_at: 1,
      created_at: 1,
    });
  }

  const enqueue = (repos: DocumentsRepositories, storeId: string, fileId: string, attributes: Record<string, string> | null = null) =>
    repos.storeFiles.enqueue({ accountId: 'acct_a', storeId, fileId, attributes, chunking, runId: runId(), createdAt: 5 });

  it('files: scoped by account, listed newest first with purpose and cursors, expired ones hidden and found by the sweep', async () => {
    const { db, repos } = await setup();
    for (const id of ['file-1', 'file-2', 'file-3']) await repos.files.insert(file(id));
    await repos.files.insert(file('file-b', 'acct_b'));
    await repos.files.insert(file('file-batch', 'acct_a', { purpose: 'batch' }));
    await repos.files.insert(file('file-old', 'acct_a', { expires_at: 100 }));
    expect(await repos.files.get('acct_b', 'file-1')).toBeUndefined();
    expect(await repos.files.get('acct_a', 'file-1')).toEqual(file('file-1'));
    expect((await repos.files.byId('file-b'))?.account_id).toBe('acct_b');
    const page = await repos.files.list('acct_a', { limit: 2 }, 200);
    expect(page.data.map((row) => row.id)).toEqual(['file-batch', 'file-3']);
    expect(page.has_more).toBe(true);
    const next = await repos.files.list('acct_a', { limit: 10, after: page.last_id! }, 200);
    expect(next.data.map((row) => row.id)).toEqual(['file-2', 'file-1']);
    expect((await repos.files.list('acct_a', { purpose: 'batch' }, 200)).data.map((row) => row.id)).toEqual(['file-batch']);
    expect((await repos.files.list('acct_a', { order: 'asc' }, 50)).data.map((row) => row.id)).toContain('file-old');
    expect(await repos.files.expired(99, 10)).toEqual([]);
    expect(await repos.files.expired(100, 10)).toEqual([{ id: 'file-old', account_id: 'acct_a' }]);
    expect(await repos.files.remove('acct_b', 'file-1')).toBe(false);
    expect(await repos.files.remove('acct_a', 'file-1')).toBe(true);
    expect(await repos.files.get('acct_a', 'file-1')).toBeUndefined();
    await db.close();
  });

  it('blobs: bytes of any size come back exactly, in bounded parts, and can be removed', async () => {
    const { db, repos, dir } = await setup();
    const sizes = { 'file-empty': 0, 'file-small': 5, 'file-exact': BLOB_PART_BYTES, 'file-big': Math.floor(2.5 * BLOB_PART_BYTES) };
    for (const [id, size] of Object.entries(sizes)) {
      const bytes = randomBytes(size);
      const staged = join(dir, `staged-${id}`);
      writeFileSync(staged, bytes);
      await db.transaction(async (tx) => {
        await repos.files.in(tx).insert({ ...file(id), bytes: size });
        await repos.blobs.in(tx).put(id, staged);
      });
      const chunks: Buffer[] = [];
      for await (const chunk of await repos.blobs.open(id)) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(chunks.every((chunk) => chunk.length <= BLOB_PART_BYTES)).toBe(true);
      expect(await repos.blobs.withLocalPath(id, async (path) => readFileSync(path).equals(bytes))).toBe(true);
    }
    await repos.blobs.remove('file-big');
    await expect(repos.blobs.open('file-big')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await buffer(await repos.blobs.open('file-small'))).toHaveLength(5);
    await db.close();
  });

  // SQLite keeps bytes on disk (a rename), so only PostgreSQL has bytes that take part in the transaction.
  const postgresOnly = backend === 'postgres' ? it : () => {};
  postgresOnly('blobs on PostgreSQL are written in the transaction of the file row: a rollback leaves no bytes', async () => {
    const { db, repos, dir } = await setup();
    const staged = join(dir, 'staged');
    writeFileSync(staged, randomBytes(3 * BLOB_PART_BYTES));
    await expect(
      db.transaction(async (tx) => {
        await repos.files.in(tx).insert(file('file-x'));
        await repos.blobs.in(tx).put('file-x', staged);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await db.get('SELECT COUNT(*) AS n FROM file_blobs')).toEqual({ n: 0 });
    await db.close();
  });

  it('stores: found by id or name in insertion order, updated, and removed with their files', async () => {
    const { db, repos } = await setup();
    await store(repos, 'vs_1', 'acct_a', 'docs');
    await store(repos, 'vs_2', 'acct_a', 'docs');
    await store(repos, 'vs_3', 'acct_b', 'docs');
    expect((await repos.stores.findByIdOrName('acct_a', 'docs')).map((row) => row.id)).toEqual(['vs_1', 'vs_2']);
    expect((await repos.stores.findByIdOrName('acct_a', 'vs_3')).map((row) => row.id)).toEqual([]);
    expect(await repos.stores.idsNamed('docs')).toEqual(['vs_1', 'vs_2', 'vs_3']);
    await repos.stores.update({ id: 'vs_1', name: 'renamed', metadata: '{"a":"b"}', expires_after_days: 3, last_active_at: 9 });
    expect(await repos.stores.get('acct_a', 'vs_1')).toMatchObject({ name: 'renamed', metadata: '{"a":"b"}', expires_after_days: 3 });
    await repos.stores.touch('vs_1', 42);
    expect((await repos.stores.get('acct_a', 'vs_1'))?.last_active_at).toBe(42);
    const page = await repos.stores.list('acct_a', { limit: 1 });
    expect(page).toMatchObject({ first_id: 'vs_2', has_more: true });
    await enqueue(repos, 'vs_2', 'file-1');
    expect(await repos.stores.remove('vs_2')).toBe(true);
    expect(await repos.storeFiles.find('vs_2', 'file-1')).toBeUndefined();
    await db.close();
  });

  it('counts and usage are exact under concurrent adds, finishes and removals', async () => {
    const { db, repos } = await setup();
    await store(repos, 'vs_c');
    await store(repos, 'vs_d');
    const rows = await Promise.all(Array.from({ length: 40 }, (_, i) => enqueue(repos, i % 4 === 0 ? 'vs_d' : 'vs_c', `file-${i}`)));
    const queue = repos.storeFiles.queue();
    const claimed = await queue.claim('owner-a', Date.now() + 60_000, 100, Date.now());
    expect(claimed).toHaveLength(40);
    const byFile = new Map(claimed.map((task) => [task.row.file_id, task.row]));
    await Promise.all(
      rows.map((row, i) =>
        i % 3 === 0
          ? repos.storeFiles.finish(byFile.get(row.file_id)!, 'owner-a', { status: 'failed', code: 'invalid_file', message: 'bad' })
          : i % 3 === 1
            ? repos.storeFiles.finish(byFile.get(row.file_id)!, 'owner-a', { status: 'completed', usageBytes: 100 + i, chunks: 2 })
            : Promise.resolve(true),
      ),
    );
    await Promise.all([repos.storeFiles.remove('vs_c', 'file-1'), repos.storeFiles.remove('vs_c', 'file-2')]);
    const usage = await repos.stores.usage(['vs_c', 'vs_d', 'vs_none']);
    const expected = {
      vs_c: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0, bytes: 0 },
      vs_d: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0, bytes: 0 },
    };
    rows.forEach((row, i) => {
      if (row.file_id === 'file-1' || row.file_id === 'file-2') return;
      const target = expected[row.store_id as 'vs_c' | 'vs_d'];
      const status = i % 3 === 0 ? 'failed' : i % 3 === 1 ? 'completed' : 'in_progress';
      target[status]++;
      target.total++;
      if (status === 'completed') target.bytes += 100 + i;
    });
    for (const id of ['vs_c', 'vs_d'] as const) {
      const { bytes, ...counts } = expected[id];
      expect(usage.get(id)).toEqual({ counts, usageBytes: bytes });
    }
    expect(usage.get('vs_none')).toEqual({ counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 }, usageBytes: 0 });
    expect(await repos.storeFiles.countInProgress(['vs_c', 'vs_d'])).toBe(expected.vs_c.in_progress + expected.vs_d.in_progress);
    await db.close();
  });

  it('store files: re-adding re-queues with a new generation and run id; only the current run of the lease owner finishes', async () => {
    const { db, repos } = await setup();
    await store(repos, 'vs_q');
    const first = await enqueue(repos, 'vs_q', 'file-1', { a: 'x' });
    expect(first).toMatchObject({ status: 'in_progress', generation: 0, attempts: 0, attributes: '{"a":"x"}' });
    const queue = repos.storeFiles.queue();
    const [task] = await queue.claim('owner-a', Date.now() + 60_000, 10, Date.now());
    expect(task).toMatchObject({ id: first.run_id, attempts: 1 });
    expect(await repos.storeFiles.finish(task!.row, 'owner-b', { status: 'completed', usageBytes: 1, chunks: 1 })).toBeUndefined();
    const second = await enqueue(repos, 'vs_q', 'file-1', { a: 'y' });
    expect(second).toMatchObject({ seq: first.seq, generation: 1, attempts: 0, attributes: '{"a":"y"}', lease_owner: null });
    expect(second.run_id).not.toBe(first.run_id);
    // The stale run can neither renew nor finish.
    expect(await queue.renew('owner-a', [first.run_id], Date.now() + 60_000)).toEqual([]);
    expect(await repos.storeFiles.finish(task!.row, 'owner-a', { status: 'completed', usageBytes: 1, chunks: 1 })).toBeUndefined();
    const [fresh] = await queue.claim('owner-a', Date.now() + 60_000, 10, Date.now());
    expect(fresh!.id).toBe(second.run_id);
    expect(await repos.storeFiles.finish(fresh!.row, 'owner-a', { status: 'completed', usageBytes: 7, chunks: 3 })).toEqual({
      attributes: '{"a":"y"}',
    });
    expect(await repos.storeFiles.find('vs_q', 'file-1')).toMatchObject({
      status: 'completed',
      usage_bytes: 7,
      chunk_count: 3,
      lease_owner: null,
    });
    await repos.storeFiles.setAttributes('vs_q', 'file-1', { b: 2 } as never);
    expect((await repos.storeFiles.find('vs_q', 'file-1'))?.attributes).toBe('{"b":2}');
    expect(await repos.storeFiles.storesOf('file-1')).toEqual(['vs_q']);
    await db.close();
  });

  it('the queue: concurrent claimers never share a row, expired leases are taken over, released ones come back', async () => {
    const { db, repos } = await setup();
    await store(repos, 'vs_l');
    for (let i = 0; i < 30; i++) await enqueue(repos, 'vs_l', `file-${i}`);
    const queue = repos.storeFiles.queue();
    const now = Date.now();
    const batches = await Promise.all(['a', 'b', 'c'].map((owner) => queue.claim(owner, now + 60_000, 12, now)));
    const ids = batches.flat().map((task) => task.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(await queue.claim('d', now + 60_000, 10, now)).toEqual([]);
    // a's leases end: d takes them over (an attempt each); b gives its rows back (no attempt counted).
    const taken = await queue.claim('d', now + 120_000, 100, now + 61_000);
    expect(taken.map((task) => task.id).sort()).toEqual(
      batches
        .flat()
        .map((task) => task.id)
        .sort(),
    );
    await queue.release(
      'd',
      batches[1]!.map((task) => task.id),
    );
    const back = await queue.claim('e', now + 200_000, 100, now + 62_000);
    expect(back.map((task) => task.id).sort()).toEqual(batches[1]!.map((task) => task.id).sort());
    expect(back.every((task) => task.attempts === 2)).toBe(true);
    expect(await queue.owners?.()).toEqual(expect.arrayContaining(['d', 'e']));
    await db.close();
  });

  it('batches: members counted once, counts by status, cancel only touches files still in progress', async () => {
    const { db, repos } = await setup();
    await store(repos, 'vs_b');
    const rows: StoreFileRow[] = [];
    for (const id of ['file-1', 'file-2', 'file-3']) rows.push(await enqueue(repos, 'vs_b', id));
    await repos.batches.insert({ id: 'vsfb_1', store_id: 'vs_b', account_id: 'acct_a', cancelled: 0, created_at: 1 }, [
      'file-1',
      'file-2',
      'file-2',
      'file-3',
    ]);
    expect(await repos.batches.get('vs_other', 'vsfb_1')).toBeUndefined();
    const [task] = await repos.storeFiles.queue().claim('o', Date.now() + 60_000, 1, Date.now());
    await repos.storeFiles.finish(task!.row, 'o', { status: 'completed', usageBytes: 1, chunks: 1 });
    expect(await repos.storeFiles.batchCounts('vs_b', 'vsfb_1')).toEqual({
      in_progress: 2,
      completed: 1,
      failed: 0,
      cancelled: 0,
      total: 3,
    });
    expect((await repos.storeFiles.cancelBatch('vsfb_1', 'vs_b')).sort()).toEqual(['file-2', 'file-3']);
    await repos.batches.markCancelled('vsfb_1');
    expect(await repos.batches.get('vs_b', 'vsfb_1')).toMatchObject({ cancelled: 1 });
    expect(await repos.storeFiles.batchCounts('vs_b', 'vsfb_1')).toEqual({
      in_progress: 0,
      completed: 1,
      failed: 0,
      cancelled: 2,
      total: 3,
    });
    const listed = await repos.storeFiles.list('vs_b', { filter: 'cancelled', order: 'asc' }, 'vsfb_1');
    expect(listed.data.map((row) => row.id)).toEqual(['file-2', 'file-3']);
    const after = await repos.storeFiles.list('vs_b', { order: 'asc', after: 'file-1', limit: 1 });
    expect(after).toMatchObject({ first_id: 'file-2', has_more: true });
    expect(await repos.storeFiles.statuses('vs_b', ['file-1', 'file-3', 'file-9'])).toEqual(
      expect.arrayContaining([
        { file_id: 'file-1', status: 'completed', chunk_count: 1 },
        { file_id: 'file-3', status: 'cancelled', chunk_count: 0 },
      ]),
    );
    await db.close();
  });

  it('index removals: requested durably, listed oldest first, cleared only for the request that was done', async () => {
    const { db, repos } = await setup();
    await repos.storeFiles.requestRemoval('vs_r', 'file-1', 10);
    await repos.storeFiles.requestRemoval('vs_r', 'file-2', 5);
    expect((await repos.storeFiles.pendingRemovals(20, 10)).map((row) => row.file_id)).toEqual(['file-2', 'file-1']);
    expect(await repos.storeFiles.pendingRemovals(7, 10)).toEqual([{ store_id: 'vs_r', file_id: 'file-2', requested_at: 5 }]);
    await repos.storeFiles.requestRemoval('vs_r', 'file-2', 15);
    await repos.storeFiles.clearRemoval('vs_r', 'file-2', 5);
    expect((await repos.storeFiles.pendingRemovals(20, 10)).map((row) => row.file_id)).toEqual(['file-1', 'file-2']);
    await repos.storeFiles.clearRemoval('vs_r', 'file-2');
    expect((await repos.storeFiles.pendingRemovals(20, 10)).map((row) => row.file_id)).toEqual(['file-1']);
    await db.close();
  });
});
