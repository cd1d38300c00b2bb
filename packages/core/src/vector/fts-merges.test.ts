import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Database, openDatabase } from '../db';
import { FtsMerges } from './fts-merges';
import { KeywordIndex } from './keyword-index';
import { vectorSchema } from './vector-schema';

let dir: string;
let db: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-fts-merges-'));
  db = openDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  db.prepare(
    "INSERT INTO vector_index_meta (store_id, embedder_id, dimensions, generation, chunk_count) VALUES ('vs_1', 'e', 1, 0, 0)",
  ).run();
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const WORDS = ['harbor', 'glacier', 'fjord', 'lantern', 'meadow', 'quarry', 'ember', 'willow', 'canyon', 'tundra', 'orchard', 'beacon'];

/** One write transaction of `rows` chunks (each one FTS5 segment before merging). */
function writeFile(file: number, rows = 20): void {
  const insert = db.prepare('INSERT INTO vector_chunks (store_id, file_id, chunk_index, text, tokens, vector) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const n = file * rows + i;
      const text = `${WORDS[n % 12]} ${WORDS[(n * 7) % 12]} ${WORDS[(n * 5 + file) % 12]} note ${n}`;
      insert.run('vs_1', `file-${file}`, i, text, 8, Buffer.alloc(4));
    }
    db.prepare("UPDATE vector_index_meta SET chunk_count = chunk_count + ? WHERE store_id = 'vs_1'").run(rows);
  })();
}

/** The FTS5 index's segments (each has its entries in the `_idx` table). */
const segments = () => (db.prepare('SELECT count(DISTINCT segid) AS n FROM vector_fts_idx').get() as { n: number }).n;

function answers(keywords: KeywordIndex): unknown[] {
  return ['harbor glacier', 'fjord lantern meadow', 'ember', 'quarry willow canyon tundra'].map((query) =>
    keywords.search(keywords.plan(query), ['vs_1'], 20, undefined, true),
  );
}

it('merges a keyword index written in many transactions into one segment, with the same answers', () => {
  for (let file = 0; file < 60; file++) writeFile(file);
  const keywords = new KeywordIndex(db, { merges: false });
  const before = answers(keywords);
  expect(segments()).toBeGreaterThan(3);

  const merges = new FtsMerges(db, { idleMs: 60_000, stepPages: 4 });
  let steps = 0;
  while (merges.step()) if (++steps > 1_000) throw new Error('the merging does not end');
  merges.close();
  expect(steps).toBeGreaterThan(1);
  expect(segments()).toBe(1);
  expect(answers(keywords)).toEqual(before);
  // Nothing left: a step changes nothing.
  expect(new FtsMerges(db, { idleMs: 60_000 }).step()).toBe(false);
  keywords.close();
});

it('merges in the background once the writes have stopped; a write puts the rest off', async () => {
  const merges = new FtsMerges(db, { idleMs: 300, stepPages: 2, pauseMs: 1 });
  for (let file = 0; file < 40; file++) {
    writeFile(file);
    merges.noteWrites();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Written every ~10 ms: the idle time never passed, nothing was merged beyond FTS5's own automerge.
  const written = segments();
  expect(written).toBeGreaterThan(3);
  for (let waited = 0; segments() > 1 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(segments()).toBe(1);
  merges.close();
});

it('takes up a merge a write interrupted once the writes stop again', async () => {
  for (let file = 0; file < 40; file++) writeFile(file);
  const written = segments();
  const merges = new FtsMerges(db, { idleMs: 30, stepPages: 1, pauseMs: 5 });
  for (let waited = 0; segments() === written && waited < 5_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  // Merging runs (in its worker): a write stops it after its step.
  writeFile(40);
  merges.noteWrites();
  for (let waited = 0; segments() > 1 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(segments()).toBe(1);
  merges.close();
  await merges.settled();
});

it('does not rewrite a merged index for a small write, only once writes add up to a quarter of it', async () => {
  for (let file = 0; file < 700; file++) writeFile(file);
  const merges = new FtsMerges(db, { idleMs: 60_000 });
  expect(merges.needsMerge()).toBe(true);
  while (merges.step());
  expect(merges.needsMerge()).toBe(false);
  expect(segments()).toBe(1);
  // A small file more: small segments beside the merged one, left as they are.
  writeFile(700);
  expect(segments()).toBeGreaterThan(1);
  expect(merges.needsMerge()).toBe(false);
  // Many more: fragmented again.
  for (let file = 701; file < 1_000; file++) writeFile(file);
  expect(merges.needsMerge()).toBe(true);
  merges.close();
});

it('merges away the tombstones many deleted chunks leave in a merged index', () => {
  for (let file = 0; file < 700; file++) writeFile(file);
  const merges = new FtsMerges(db, { idleMs: 60_000, tombstoneBytes: 4_096 });
  while (merges.step());
  expect(merges.needsMerge()).toBe(false);
  const keywords = new KeywordIndex(db, { merges: false });
  const ids = (query: string) => keywords.search(keywords.plan(query), ['vs_1'], 50, undefined, true).map((hit) => hit.id);
  // 60 files' chunks deleted (1,200 of 14,000; from a tenth, FTS5 purges a segment itself): tombstones in the
  // merged segment, which every query reads (~7 KB here).
  const remove = db.prepare('DELETE FROM vector_chunks WHERE file_id = ?');
  db.transaction(() => {
    for (let file = 0; file < 60; file++) remove.run(`file-${file}`);
  })();
  const remaining = new Set((db.prepare('SELECT id FROM vector_chunks').all() as Array<{ id: number }>).map((row) => row.id));
  expect(segments()).toBe(1);
  expect(merges.needsMerge()).toBe(true);
  const before = ids('harbor glacier');
  expect(before.every((id) => remaining.has(id))).toBe(true);
  while (merges.step());
  expect(merges.needsMerge()).toBe(false);
  expect(ids('harbor glacier')).toEqual(before);
  keywords.close();
  merges.close();
});

it('stops merging when closed', async () => {
  for (let file = 0; file < 40; file++) writeFile(file);
  const merges = new FtsMerges(db, { idleMs: 20 });
  merges.close();
  const written = segments();
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(segments()).toBe(written);
});
