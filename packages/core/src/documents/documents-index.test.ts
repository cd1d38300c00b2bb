/**
 * Documents with the real index of each backend (`VectorIndex` on SQLite, `PgVectorIndex` on
 * PostgreSQL), several "processes" on one database: a process that dies in the middle of writing a
 * file's chunks loses nothing, and the file is indexed exactly once by the process that takes it over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { HashEmbedder } from '../embeddings';
import { silentLogger } from '../internal/logger';
import { SqliteDatabase, type SqlDatabase } from '../storage';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { PgVectorIndex, type VectorIndexContract, VectorIndex, vectorSchema } from '../vector';
import { DocumentsCapability } from './documents-capability';
import { documentsSchema } from './schema';

afterAll(closeTestPostgres);

const embedder = new HashEmbedder();
const words = 'harbour lighthouse keeper lamp tide ferry anchor rope gull beacon'.split(' ');
/** 300 static chunks of 100 tokens: several write batches on both backends. */
const document = Array.from({ length: 30_000 }, (_, i) => `${words[i % words.length]}${Math.floor(i / 97)}`).join(' ');
const chunking = { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } } as const;

/** A promise that never settles on its own: the process froze there. `kill()` ends it so the test can clean up. */
function freezer() {
  let kill!: (error: Error) => void;
  const frozen = new Promise<never>((_, reject) => (kill = reject));
  frozen.catch(() => {});
  return { frozen, kill: () => kill(new Error('process killed')) };
}

describe.each(testBackends())('Documents with the real index on %s', (backend) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });

  async function cluster() {
    const database = await sharedTestDatabase(backend, [documentsSchema, vectorSchema]);
    const sharedDir = mkdtempSync(join(tmpdir(), 'fathom-docs-index-'));
    cleanups.push(async () => {
      await database.close();
      rmSync(sharedDir, { recursive: true, force: true });
    });
    /** One process: its database client, its index (optionally over a client that freezes), Documents. */
    const node = async (wrapIndexDb?: (db: SqlDatabase) => SqlDatabase, env: Record<string, string> = {}) => {
      const db = await database.open();
      const dataDir = backend === 'sqlite' ? sharedDir : mkdtempSync(join(tmpdir(), 'fathom-node-'));
      const indexDb = wrapIndexDb ? wrapIndexDb(db) : db;
      const index: VectorIndexContract =
        db instanceof SqliteDatabase
          ? new VectorIndex({ db: indexDb as SqliteDatabase, embedder, dataDir: join(dataDir, `hnsw-${Math.random()}`), log: silentLogger })
          : new PgVectorIndex({ db: indexDb, embedder, log: silentLogger });
      const documents = new DocumentsCapability({
        db,
        config: loadConfig({ FATHOM_LEASE_SECONDS: '1', ...env }, { dataDir }),
        embedder,
        vectorIndex: index,
        log: silentLogger,
      });
      cleanups.push(async () => {
        await documents.close();
        await index.close();
        if (dataDir !== sharedDir) rmSync(dataDir, { recursive: true, force: true });
      });
      return { db, documents, index };
    };
    return { node };
  }

  /** A client whose index writes freeze after `allowed` write steps (SQLite batches, PostgreSQL statements). */
  function freezingAfter(allowed: number, frozen: Promise<never>) {
    return (db: SqlDatabase): SqlDatabase => {
      let writes = 0;
      const gate = async <T>(next: () => Promise<T>) => (++writes > allowed ? frozen : next());
      if (db instanceof SqliteDatabase) {
        const wrapped = {
          dialect: db.dialect,
          location: db.location,
          raw: db.raw,
          prepare: db.prepare.bind(db),
          immediate: <T>(fn: () => T) => gate(() => db.immediate(fn)),
        };
        return wrapped as unknown as SqlDatabase;
      }
      return {
        dialect: db.dialect,
        location: db.location,
        all: (sql, params) => db.all(sql, params),
        get: (sql, params) => db.get(sql, params),
        run: (sql, params) => (/^\s*(INSERT|DELETE|UPDATE)/i.test(sql) ? gate(() => db.run(sql, params)) : db.run(sql, params)),
        transaction: (fn) => gate(() => db.transaction(fn)),
        close: () => db.close(),
      };
    };
  }

  /**
   * Holds the index's write of a file at the step where its chunks would be numbered (PostgreSQL: the
   * write id; SQLite: the first write transaction) until `release()`; `reached` settles when it got there.
   */
  function pausingWrite() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reach!: () => void;
    const reached = new Promise<void>((resolve) => (reach = resolve));
    let held = false;
    const hold = async <T>(next: () => Promise<T>) => {
      if (!held) {
        held = true;
        reach();
        await released;
      }
      return next();
    };
    const wrap = (db: SqlDatabase): SqlDatabase => {
      if (db instanceof SqliteDatabase) {
        return {
          dialect: db.dialect,
          location: db.location,
          raw: db.raw,
          prepare: db.prepare.bind(db),
          immediate: <T>(fn: () => T) => hold(() => db.immediate(fn)),
        } as unknown as SqlDatabase;
      }
      return {
        dialect: db.dialect,
        location: db.location,
        all: (sql, params) => db.all(sql, params),
        get: (sql, params) => (sql.includes('nextval') ? hold(() => db.get(sql, params)) : db.get(sql, params)),
        run: (sql, params) => db.run(sql, params),
        transaction: (fn) => db.transaction(fn),
        close: () => db.close(),
      };
    };
    return { wrap, reached, release };
  }

  it("a run that lost its file to a re-add on another process cannot publish its stale chunks over the new run's", async () => {
    const { node } = await cluster();
    const pause = pausingWrite();
    // Node A (one file at a time) starts the file and is held just before its index write.
    const a = await node(pause.wrap, { FATHOM_INGEST_CONCURRENCY: '1' });
    const file = await a.documents.files.create('acct', { filename: 'harbour.txt', purpose: 'assistants', file: Buffer.from(document) });
    const store = await a.documents.vectorStores.create('acct', { name: 'harbour' });
    await a.documents.vectorStores.files.create('acct', store.id, { file_id: file.id, chunking_strategy: chunking });
    a.documents.start();
    await pause.reached;

    // Meanwhile the file is added again with other options, and node B ingests that run to the end.
    const b = await node();
    const rechunked = { type: 'static', static: { max_chunk_size_tokens: 400, chunk_overlap_tokens: 0 } } as const;
    await b.documents.vectorStores.files.create('acct', store.id, {
      file_id: file.id,
      chunking_strategy: rechunked,
      attributes: { run: 'new' },
    });
    b.documents.start();
    expect(await b.documents.waitForIngestion('acct', [store.id], 30_000)).toBe(true);
    expect((await b.documents.vectorStores.files.retrieve('acct', store.id, file.id)).status).toBe('completed');
    const current = await b.index.fileChunks(store.id, file.id);
    expect(current).toHaveLength(75);

    // A's stale write goes on now (on PostgreSQL its write is numbered after B's, so only the lease
    // fence can stop it): it must leave B's chunks in place.
    pause.release();
    await a.documents.close(); // waits for A's run, its write included, to end
    const c = await node();
    expect(await c.index.fileChunks(store.id, file.id)).toEqual(current);
    expect((await c.index.storeInfo(store.id))?.chunks).toBe(75);
    expect(await c.db.get('SELECT COUNT(*) AS n FROM vector_chunks WHERE file_id = ?', [file.id])).toEqual({ n: 75 });
    const stored = await c.documents.vectorStores.files.retrieve('acct', store.id, file.id);
    expect(stored).toMatchObject({ status: 'completed', attributes: { run: 'new' } });
    const hits = await c.documents.search('acct', [store.id], { query: 'lighthouse7 keeper7', maxNumResults: 5 });
    expect(hits.every((hit) => hit.content[0]!.text.split(' ').length > 300)).toBe(true);
  });

  it('a process that dies mid-file loses nothing: another takes the file over and it is indexed exactly once', async () => {
    const { node } = await cluster();
    const { frozen, kill } = freezer();
    // Node A writes part of the file's chunks, then freezes; its database connection then goes away.
    const a = await node(freezingAfter(backend === 'sqlite' ? 2 : 3, frozen));
    cleanups.push(async () => kill()); // runs before A's close, which waits for its frozen run
    const file = await a.documents.files.create('acct', { filename: 'harbour.txt', purpose: 'assistants', file: Buffer.from(document) });
    const store = await a.documents.vectorStores.create('acct', { name: 'harbour' });
    await a.documents.vectorStores.files.create('acct', store.id, { file_id: file.id, chunking_strategy: chunking });
    a.documents.start();
    const leased = async () =>
      (await a.db.get<{ lease_owner: string | null }>('SELECT lease_owner FROM vector_store_files WHERE file_id = ?', [file.id]))
        ?.lease_owner;
    const deadline = Date.now() + 20_000;
    while (!(await leased()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const partial = async () => (await a.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM vector_chunks WHERE file_id = ?', [file.id]))!.n;
    while ((await partial()) === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await partial()).toBeGreaterThan(0);
    await a.db.close(); // heartbeats stop: the lease runs out

    // Node B takes over once A's lease ends; node C, started afterwards, searches what B indexed. B's own
    // lease is the default 30 s: a heartbeat late by seconds on a loaded machine (a 5 s lease once lost
    // its run to a third attempt in CI, with PGlite's one connection busy) must not hand B's run to a
    // third attempt (that would be right, but this test counts exactly one takeover).
    const b = await node(undefined, { FATHOM_LEASE_SECONDS: '30' });
    b.documents.start();
    expect(await b.documents.waitForIngestion('acct', [store.id], 30_000)).toBe(true);
    const done = await b.documents.vectorStores.files.retrieve('acct', store.id, file.id);
    expect(done.status).toBe('completed');
    expect(await b.db.get('SELECT attempts FROM vector_store_files WHERE file_id = ?', [file.id])).toEqual({ attempts: 2 });
    const c = await node();
    const chunks = await c.index.fileChunks(store.id, file.id);
    expect(chunks).toHaveLength(300);
    expect(new Set(chunks).size).toBe(300);
    expect((await c.index.storeInfo(store.id))?.chunks).toBe(300);
    expect(await c.db.get('SELECT COUNT(*) AS n FROM vector_chunks WHERE file_id = ?', [file.id])).toEqual({ n: 300 });
    const hits = await c.documents.search('acct', [store.id], { query: 'lighthouse7 keeper7', maxNumResults: 50 });
    expect(hits.length).toBeGreaterThan(0);
    const texts = hits.map((hit) => hit.content[0]!.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(hits.every((hit) => hit.file_id === file.id)).toBe(true);
  });
});
