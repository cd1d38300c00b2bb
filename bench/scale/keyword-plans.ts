/**
 * The keyword side's plans at scale, side by side (issue 24; docs/decisions/2026-11-26-keyword-intersections.md):
 * for each scale-bench query on a kept data dir, the top 40 chunk ids by BM25 of
 *   - one word: the rarest group alone (the postings budget's plan, `plan.match`),
 *   - intersections: what `KeywordIndex.search` returns (`plan.narrowed` first, then `plan.match`),
 *   - all words: BM25 over every group not too common (no budget: the reference, too slow to serve),
 * with the time of each (this thread, the same statement as an unfiltered search), the rows FTS5 matched
 * for the one-word plan, and how many of the reference's top 40 each plan returns. Opens the database read-only.
 *
 *   FATHOM_DATA_DIR=/tmp/copy nice -n 19 npx tsx --conditions=fathom-source bench/scale/keyword-plans.ts [queries]
 */
import Database from 'better-sqlite3';
import type { Database as FathomDatabase } from '../../packages/core/src/db';
import { KeywordIndex } from '../../packages/core/src/vector/keyword-index';
import { ftsString } from '../../packages/core/src/vector/keyword-query';
import { benchQueries } from './corpus';

const QUERIES = Number(process.argv[2] ?? 100);
const DEPTH = 40;
const db = new Database(`${process.env.FATHOM_DATA_DIR}/fathom.db`, { readonly: true });
const keywords = new KeywordIndex(db as unknown as FathomDatabase, { merges: false });
keywords.plan('start the vocabulary scan');
await keywords.vocabularyScanned();
const top = db.prepare<[string], { id: number }>(
  'SELECT rowid AS id FROM vector_fts WHERE vector_fts MATCH ? ORDER BY bm25(vector_fts) LIMIT 40',
);
const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM vector_fts WHERE vector_fts MATCH ?');
const timed = <T>(run: () => T): { value: T; ms: number } => {
  run();
  const started = performance.now();
  let value = run();
  for (let i = 0; i < 4; i++) value = run();
  return { value, ms: (performance.now() - started) / 5 };
};

const figures = {
  'one word': { ms: [] as number[], found: [] as number[] },
  intersections: { ms: [], found: [] },
  'all words': { ms: [], found: [] },
} as Record<string, { ms: number[]; found: number[] }>;
const matched: number[] = [];
let narrowedQueries = 0;
for (const query of benchQueries(QUERIES)) {
  const plan = keywords.plan(query);
  if (!plan.match) continue;
  const tooCommon = Math.max(2000, 0.1 * plan.total);
  const every = plan.groups
    .filter((group) => group.documentFrequency <= tooCommon)
    .map((group) => `(${group.kind === 'phrase' ? ftsString(group.words) : group.present.map((form) => ftsString([form])).join(' OR ')})`)
    .join(' OR ');
  const reference = timed(() => top.all(every).map((row) => row.id));
  const want = new Set(reference.value);
  const record = (name: string, result: { value: number[]; ms: number }) => {
    figures[name]!.ms.push(result.ms);
    figures[name]!.found.push(result.value.filter((id) => want.has(id)).length / Math.max(1, want.size));
  };
  record('all words', reference);
  record(
    'one word',
    timed(() => top.all(plan.match!).map((row) => row.id)),
  );
  record(
    'intersections',
    timed(() => keywords.search(plan, ['any'], DEPTH, undefined, true).map((hit) => hit.id)),
  );
  matched.push(count.get(plan.match)!.n);
  if (plan.narrowed) narrowedQueries++;
}
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(
  `${matched.length} queries; ${narrowedQueries} narrowed; rows matched by the rarest group p50 ${quantile(matched, 0.5)} p90 ${quantile(matched, 0.9)}; load ${(
    await import('node:os')
  )
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}`,
);
for (const [name, { ms, found }] of Object.entries(figures))
  console.log(
    `  ${name.padEnd(14)} ms p50 ${quantile(ms, 0.5).toFixed(2)} p90 ${quantile(ms, 0.9).toFixed(2)}   share of the all-words top 40 found: mean ${mean(found).toFixed(3)}`,
  );
keywords.close();
