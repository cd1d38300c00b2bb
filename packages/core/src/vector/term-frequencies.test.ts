import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db';
import { TermFrequencies } from './term-frequencies';
import { vectorSchema } from './vector-schema';

let dir: string;
let db: Database;
let nextId = 1;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-terms-'));
  db = openDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  for (const text of ['alpha beta gamma', 'alpha beta', 'alpha delta', 'omega']) addChunk(db, text);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function addChunk(target: Database, text: string): void {
  target
    .prepare('INSERT INTO vector_chunks (store_id, file_id, chunk_index, text, tokens, vector) VALUES (?, ?, ?, ?, ?, ?)')
    .run('vs_1', 'file-1', nextId++, text, 3, Buffer.alloc(4));
}

const indexed = (target: Database) => (target.prepare('SELECT COUNT(*) AS n FROM vector_chunks').get() as { n: number }).n;

it('answers document frequencies from the in-memory copy of the vocabulary once the background scan ran', async () => {
  const terms = new TermFrequencies(db, { quietAfterWritesMs: 0, rescanIntervalMs: 0 });
  const total = indexed(db);
  expect(terms.get('alpha', total)).toBe(3); // a lookup; starts the scan
  expect(await terms.scanned()).toBe(true);
  expect([terms.get('beta', total), terms.get('delta', total), terms.get('omega', total), terms.get('zeta', total)]).toEqual([2, 1, 1, 0]);
  terms.close();
});

it('finds a word written after the scan at once (in this process or by another one)', async () => {
  const terms = new TermFrequencies(db, { quietAfterWritesMs: 0, rescanIntervalMs: 60_000 });
  terms.get('alpha', indexed(db));
  expect(await terms.scanned()).toBe(true);
  expect(terms.get('zebra', indexed(db))).toBe(0);
  // One chunk replaced by another: the chunk count stays, the write is what tells.
  db.prepare("DELETE FROM vector_chunks WHERE text = 'omega'").run();
  addChunk(db, 'zebra crossing');
  terms.noteWrites();
  expect(terms.get('crossing', indexed(db))).toBe(1);
  // Another process: no noteWrites here, but the indexed chunk count moved.
  const other = openDatabase({ location: join(dir, 'fathom.db') });
  addChunk(other, 'yak shaving');
  other.close();
  expect(terms.get('shaving', indexed(db))).toBe(1);
  terms.close();
});

it('does not scan while chunks are being written, nor a database held only in memory', async () => {
  const busy = new TermFrequencies(db, { quietAfterWritesMs: 60_000, rescanIntervalMs: 0 });
  busy.noteWrites();
  expect(busy.get('alpha', indexed(db))).toBe(3);
  expect(await busy.scanned()).toBe(false);
  const memory = openDatabase({ schemas: [vectorSchema] });
  addChunk(memory, 'alpha beta');
  const inMemory = new TermFrequencies(memory, { quietAfterWritesMs: 0, rescanIntervalMs: 0 });
  expect(inMemory.get('beta', indexed(memory))).toBe(1);
  expect(await inMemory.scanned()).toBe(false);
  memory.close();
});
