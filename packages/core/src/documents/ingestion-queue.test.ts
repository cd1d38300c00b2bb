import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { silentLogger } from '../internal/logger';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { FakeVectorIndex, fakeEmbedder } from './__fixtures__/fakes';
import { DocumentsCapability } from './documents-capability';
import { documentsSchema } from './schema';

const text = (s: string) => new TextEncoder().encode(s);

afterAll(closeTestPostgres);

/** Polls `check` until it holds or the deadline passes (then the last value is returned for the assertion). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
}

/** An index counting the writes per file, each write taking a little time. */
function countingIndex() {
  const index = new FakeVectorIndex();
  const adds = new Map<string, number>();
  const add = index.addFileChunks.bind(index);
  index.addFileChunks = async (input) => {
    adds.set(input.fileId, (adds.get(input.fileId) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return add(input);
  };
  return { index, adds };
}

describe.each(testBackends())('ingestion queue on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function cluster() {
    const database = await sharedTestDatabase(backend, [documentsSchema]);
    cleanups.push(() => database.close());
    /** One "process": its own data dir (local caches) on the shared database. */
    const node = async (index: FakeVectorIndex, leaseSeconds = '30') => {
      const dataDir = mkdtempSync(join(tmpdir(), 'fathom-node-'));
      const db = await database.open();
      const documents = new DocumentsCapability({
        db,
        config: loadConfig({ FATHOM_LEASE_SECONDS: leaseSeconds }, { dataDir: backend === 'sqlite' ? sharedDir : dataDir }),
        embedder: fakeEmbedder(),
        vectorIndex: index,
        log: silentLogger,
      });
      cleanups.push(async () => {
        await documents.close();
        rmSync(dataDir, { recursive: true, force: true });
      });
      return { documents, db };
    };
    // SQLite processes share the data dir (the bytes live there); PostgreSQL nodes each have their own.
    const sharedDir = mkdtempSync(join(tmpdir(), 'fathom-shared-'));
    cleanups.push(async () => rmSync(sharedDir, { recursive: true, force: true }));
    return { node };
  }

  it('several processes on one database share the queue and never ingest a file twice', async () => {
    const { node } = await cluster();
    const { index, adds } = countingIndex();
    const a = await node(index);
    const b = await node(index);
    const c = await node(index);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(
        (await a.documents.files.create('acct', { filename: `f${i}.txt`, purpose: 'assistants', file: text(`lease test ${i}`) })).id,
      );
    }
    const store = await b.documents.vectorStores.create('acct', { file_ids: ids });
    for (const { documents } of [a, b, c]) documents.start();
    expect(await c.documents.waitForIngestion('acct', [store.id], 20_000)).toBe(true);
    expect((await a.documents.vectorStores.retrieve('acct', store.id)).file_counts.completed).toBe(30);
    expect(adds.size).toBe(30);
    expect([...adds.values()].every((n) => n === 1)).toBe(true);
  });

  it('takes over a file whose process died mid-file once its lease ends, and indexes it once', async () => {
    const { node } = await cluster();
    const { index, adds } = countingIndex();
    const { documents, db } = await node(index, '0.5');
    const file = await documents.files.create('acct', { filename: 'orphan.txt', purpose: 'assistants', file: text('left by a crash') });
    const store = await documents.vectorStores.create('acct', { file_ids: [file.id] });
    // What a process killed mid-file leaves: the row leased to it, one attempt counted, the lease running.
    await db.run('UPDATE vector_store_files SET lease_owner = ?, lease_until = ?, attempts = 1 WHERE file_id = ?', [
      'another-host|4242|dead',
      Date.now() + 400,
      file.id,
    ]);
    documents.start();
    const done = await until(
      () => documents.vectorStores.files.retrieve('acct', store.id, file.id),
      (row) => row.status !== 'in_progress',
    );
    expect(done.status).toBe('completed');
    expect(adds.get(file.id)).toBe(1);
    expect(await db.get('SELECT attempts, lease_owner FROM vector_store_files WHERE file_id = ?', [file.id])).toEqual({
      attempts: 2,
      lease_owner: null,
    });
  });

  it('frees the leases of a dead process of this host at start, but waits for a live one', async () => {
    const { node } = await cluster();
    const { documents, db } = await node(new FakeVectorIndex());
    const dead = await documents.files.create('acct', { filename: 'dead.txt', purpose: 'assistants', file: text('left by a crash') });
    const live = await documents.files.create('acct', { filename: 'live.txt', purpose: 'assistants', file: text('held by a live peer') });
    const store = await documents.vectorStores.create('acct', { file_ids: [dead.id, live.id] });
    const leaseUntil = Date.now() + 60_000;
    const lease = (owner: string, fileId: string) =>
      db.run('UPDATE vector_store_files SET lease_owner = ?, lease_until = ?, attempts = 1 WHERE file_id = ?', [owner, leaseUntil, fileId]);
    await lease(`${hostname()}|2147483646|dead`, dead.id);
    await lease(`${hostname()}|${process.ppid}|peer`, live.id);
    documents.start();
    const first = await until(
      () => documents.vectorStores.files.retrieve('acct', store.id, dead.id),
      (row) => row.status !== 'in_progress',
    );
    expect(first.status).toBe('completed');
    expect((await documents.vectorStores.files.retrieve('acct', store.id, live.id)).status).toBe('in_progress');
    // Once the peer's lease runs out, the file is taken.
    await db.run('UPDATE vector_store_files SET lease_until = ? WHERE file_id = ?', [Date.now() - 1, live.id]);
    documents.core.queue.wake();
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    expect((await documents.vectorStores.files.retrieve('acct', store.id, live.id)).status).toBe('completed');
  });

  it('a file re-added while it runs is finished by its new run only, with the new attributes', async () => {
    const { node } = await cluster();
    const index = new FakeVectorIndex();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const add = index.addFileChunks.bind(index);
    let calls = 0;
    index.addFileChunks = async (input) => {
      if (++calls === 1) await gate; // the first run waits inside the index write
      return add(input);
    };
    const { documents } = await node(index);
    documents.start();
    const file = await documents.files.create('acct', { filename: 'twice.txt', purpose: 'assistants', file: text('same words') });
    const store = await documents.vectorStores.create('acct', { file_ids: [file.id] });
    await until(
      async () => calls,
      (n) => n === 1,
    );
    await documents.vectorStores.files.create('acct', store.id, { file_id: file.id, attributes: { version: 2 } });
    release();
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    expect(await documents.vectorStores.files.retrieve('acct', store.id, file.id)).toMatchObject({
      status: 'completed',
      attributes: { version: 2 },
    });
    const hits = await documents.search('acct', [store.id], { query: 'same words', filters: { type: 'eq', key: 'version', value: 2 } });
    expect(hits.map((hit) => hit.file_id)).toEqual([file.id]);
    expect(calls).toBe(2);
  });

  it('attributes updated while a file is ingesting reach search', async () => {
    const { node } = await cluster();
    const index = new FakeVectorIndex();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const add = index.addFileChunks.bind(index);
    let entered = false;
    index.addFileChunks = async (input) => {
      entered = true;
      await gate;
      return add(input);
    };
    const { documents } = await node(index);
    documents.start();
    const file = await documents.files.create('acct', { filename: 'tagged.txt', purpose: 'assistants', file: text('quarterly numbers') });
    const store = await documents.vectorStores.create('acct', {});
    await documents.vectorStores.files.create('acct', store.id, { file_id: file.id, attributes: { team: 'old' } });
    await until(
      async () => entered,
      (value) => value,
    );
    const updated = await documents.vectorStores.files.update('acct', store.id, file.id, { attributes: { team: 'new' } });
    expect(updated.attributes).toEqual({ team: 'new' });
    release();
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    const search = (team: string) =>
      documents.search('acct', [store.id], { query: 'quarterly numbers', filters: { type: 'eq', key: 'team', value: team } });
    expect((await search('new')).map((hit) => hit.file_id)).toEqual([file.id]);
    expect(await search('old')).toEqual([]);
  });

  it('waiting for ingestion leaves no listener behind', async () => {
    const { node } = await cluster();
    const { documents } = await node(new FakeVectorIndex());
    const file = await documents.files.create('acct', { filename: 'w.txt', purpose: 'assistants', file: text('waiting') });
    const store = await documents.vectorStores.create('acct', { file_ids: [file.id] });
    // Not started: the file stays queued, so each wait times out after several 250 ms rounds.
    expect(await documents.waitForIngestion('acct', [store.id], 600)).toBe(false);
    expect(documents.core.queue.events.listenerCount('settled')).toBe(0);
    documents.start();
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    expect(documents.core.queue.events.listenerCount('settled')).toBe(0);
  });
});
