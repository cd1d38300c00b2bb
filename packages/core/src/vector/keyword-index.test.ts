import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type Database } from '../db';
import { KeywordIndex } from './keyword-index';
import { vectorSchema } from './vector-schema';

let dir: string;
let db: Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fathom-keywords-'));
  db = openDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One store of these chunk texts (ids from 1, in order). */
function store(texts: string[]): void {
  const insert = db.prepare('INSERT INTO vector_chunks (store_id, file_id, chunk_index, text, tokens, vector) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    texts.forEach((text, i) => insert.run('vs_1', 'file-1', i, text, 10, Buffer.alloc(4)));
    db.prepare(
      "INSERT INTO vector_index_meta (store_id, embedder_id, dimensions, generation, chunk_count) VALUES ('vs_1', 'e', 1, 0, ?)",
    ).run(texts.length);
  })();
}

const textOf = (id: number) => (db.prepare('SELECT text FROM vector_chunks WHERE id = ?').get(id) as { text: string }).text;
const words = (id: number) => new Set(textOf(id).split(' '));

/**
 * 1,300 chunks: `fjord` in 600 (short ones, where BM25 of `fjord` alone ranks highest), `glacier` in 700,
 * both in `both` of them. The postings budget (500 here) searches `fjord` alone: its 600 rows are scored.
 */
function corpus(both: number): void {
  const texts: string[] = [];
  for (let i = 0; i < 600 - both; i++) texts.push(`fjord fjord notes ${i}`);
  for (let i = 0; i < both; i++) texts.push(`fjord glacier walk along the coast with long notes ${i}`);
  for (let i = 0; i < 700 - both; i++) texts.push(`glacier ice ${i}`);
  store(texts);
}

it('searches the rows holding the rarest word and the next ones first when the rarest alone is in many chunks', () => {
  corpus(200);
  const keywords = new KeywordIndex(db);
  const plan = keywords.plan('fjord glacier');
  expect(plan.groups.find((group) => group.words[0] === 'glacier')?.searched).toBe(false); // over the budget
  expect(plan.narrowed).toHaveLength(1);
  const hits = keywords.search(plan, ['vs_1'], 10, undefined, true);
  expect(hits).toHaveLength(10);
  // Every hit holds both words; BM25 of `fjord` alone would rank the short `fjord fjord` chunks first.
  for (const hit of hits) expect(words(hit.id).has('glacier') && words(hit.id).has('fjord')).toBe(true);
  const wide = new KeywordIndex(db, { intersectAbove: 10_000 });
  const widePlan = wide.plan('fjord glacier');
  expect(widePlan.narrowed).toBeUndefined();
  expect(wide.search(widePlan, ['vs_1'], 10, undefined, true).filter((hit) => words(hit.id).has('glacier'))).toHaveLength(0);
  keywords.close();
  wide.close();
});

it('fills what the narrower search leaves from the rarest word alone, each chunk once', () => {
  corpus(3);
  const keywords = new KeywordIndex(db);
  const plan = keywords.plan('fjord glacier');
  for (const scope of [{ everyChunk: true }, { everyChunk: false, ranges: new Float64Array([1, 1300]) }, { everyChunk: false }]) {
    const hits = keywords.search(plan, ['vs_1'], 10, scope.ranges, scope.everyChunk, [1, 1300]);
    expect(
      hits
        .map((hit) => hit.id)
        .slice(0, 3)
        .map((id) => words(id).has('glacier')),
    ).toEqual([true, true, true]);
    expect(hits).toHaveLength(10);
    expect(new Set(hits.map((hit) => hit.id)).size).toBe(10);
    for (const hit of hits.slice(3)) expect(words(hit.id).has('fjord')).toBe(true);
  }
  keywords.close();
});

it('keeps one expression when the rarest word is in few chunks', () => {
  corpus(200);
  const keywords = new KeywordIndex(db);
  expect(keywords.plan('fjord glacier notes').narrowed).toHaveLength(2);
  expect(keywords.plan('walk glacier').narrowed).toBeUndefined(); // walk: 200 chunks
  keywords.close();
});
