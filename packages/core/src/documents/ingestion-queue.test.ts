import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { openDatabase, type Database } from '../db';
import { silentLogger } from '../internal/logger';
import { FakeVectorIndex, fakeEmbedder } from './__fixtures__/fakes';
import { Documents } from './documents';
import { documentsSchema } from './schema';

const text = (s: string) => new TextEncoder().encode(s);
const opened: Array<{ documents: Documents; db: Database }> = [];

function open(dataDir: string, index: FakeVectorIndex) {
  const db = openDatabase({ location: join(dataDir, 'fathom.db'), schemas: [documentsSchema] });
  const documents = new Documents({
    db,
    config: loadConfig({}, { dataDir }),
    embedder: fakeEmbedder(),
    vectorIndex: index,
    log: silentLogger,
  });
  opened.push({ documents, db });
  return { documents, db };
}

afterEach(async () => {
  for (const { documents, db } of opened.splice(0)) {
    await documents.close();
    db.close();
  }
});

describe('IngestionQueue leases', () => {
  it('two processes on one data dir (server and fathom ingest) never ingest the same file twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-lease-'));
    const index = new FakeVectorIndex();
    const adds = new Map<string, number>();
    const add = index.addFileChunks.bind(index);
    index.addFileChunks = async (input) => {
      adds.set(input.fileId, (adds.get(input.fileId) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return add(input);
    };
    const a = open(dataDir, index);
    const b = open(dataDir, index);
    const ids = Array.from(
      { length: 30 },
      (_, i) => a.documents.createFile('acct', { filename: `f${i}.txt`, purpose: 'assistants', data: text(`lease test ${i}`) }).id,
    );
    const store = a.documents.createStore('acct', { file_ids: ids });
    a.documents.start();
    b.documents.start();
    b.documents.queue.pump();
    expect(await a.documents.waitForIngestion('acct', [store.id], 20_000)).toBe(true);
    expect(a.documents.getStore('acct', store.id).file_counts.completed).toBe(30);
    expect([...adds.values()].every((n) => n === 1)).toBe(true);
    expect(adds.size).toBe(30);
  });

  it('takes over files leased by a process that died, but not by one that lives', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-lease-'));
    const { documents, db } = open(dataDir, new FakeVectorIndex());
    const dead = documents.createFile('acct', { filename: 'dead.txt', purpose: 'assistants', data: text('left by a crash') });
    const live = documents.createFile('acct', { filename: 'live.txt', purpose: 'assistants', data: text('held by a live peer') });
    const store = documents.createStore('acct', { file_ids: [dead.id, live.id] });
    const until = Date.now() + 60_000;
    db.prepare('UPDATE vector_store_files SET lease_owner = ?, lease_until = ? WHERE file_id = ?').run(
      `${hostname()}|2147483646|dead`,
      until,
      dead.id,
    );
    db.prepare('UPDATE vector_store_files SET lease_owner = ?, lease_until = ? WHERE file_id = ?').run(
      `${hostname()}|${process.ppid}|peer`,
      until,
      live.id,
    );
    documents.start();
    for (let i = 0; i < 200 && documents.getStoreFile('acct', store.id, dead.id).status === 'in_progress'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(documents.getStoreFile('acct', store.id, dead.id).status).toBe('completed');
    expect(documents.getStoreFile('acct', store.id, live.id).status).toBe('in_progress');
    // Once the peer's lease runs out, the file is taken.
    db.prepare('UPDATE vector_store_files SET lease_until = ? WHERE file_id = ?').run(Date.now() - 1, live.id);
    documents.queue.pump();
    expect(await documents.waitForIngestion('acct', [store.id], 10_000)).toBe(true);
    expect(documents.getStoreFile('acct', store.id, live.id).status).toBe('completed');
  });
});
