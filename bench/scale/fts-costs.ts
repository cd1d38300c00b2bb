/**
 * What the keyword side's FTS5 statements cost at scale, part by part (issue 24): for each scale-bench
 * query on a kept data dir, each statement `KeywordIndex.search` runs (the plan's intersections, then the
 * rarest group alone) timed as
 *   - count: `count(*)` of the MATCH (finding the rows, no scoring),
 *   - first bm25: `bm25()` of the first matching row only (FTS5's per-statement set-up: it counts every
 *     phrase's rows for the IDF weights),
 *   - ranked: `ORDER BY bm25 LIMIT 40`, what the search runs,
 * and `KeywordIndex.search` itself, the first time for each query ('first search') and repeated ('search').
 * Opens the database read-only. `FTS_PRAGMAS="cache_size=-262144;…"` sets pragmas on the connection first;
 * `FTS_WARM_PASSES=n` runs every query's search n times before the measured pass.
 *
 *   FATHOM_DATA_DIR=/tmp/copy npx tsx --conditions=fathom-source bench/scale/fts-costs.ts [queries]
 */
import Database from 'better-sqlite3';
import type { Database as FathomDatabase } from '../../packages/core/src/db';
import { KeywordIndex } from '../../packages/core/src/vector/keyword-index';
import { benchQueries } from './corpus';

const QUERIES = Number(process.argv[2] ?? 100);
const db = new Database(`${process.env.FATHOM_DATA_DIR}/fathom.db`, { readonly: true });
for (const pragma of process.env.FTS_PRAGMAS?.split(';').filter(Boolean) ?? []) db.pragma(pragma);
const keywords = new KeywordIndex(db as unknown as FathomDatabase, { merges: false });
keywords.plan('start the vocabulary scan');
await keywords.vocabularyScanned();
const ranked = db.prepare('SELECT rowid AS id, bm25(vector_fts) AS s FROM vector_fts WHERE vector_fts MATCH ? ORDER BY s LIMIT 40');
const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM vector_fts WHERE vector_fts MATCH ?');
const first = db.prepare('SELECT bm25(vector_fts) AS s FROM vector_fts WHERE vector_fts MATCH ? LIMIT 1');
const timed = (run: () => unknown): number => {
  run();
  const started = performance.now();
  for (let i = 0; i < 5; i++) run();
  return (performance.now() - started) / 5;
};

const rows: Record<string, number[]> = {
  'first search': [],
  search: [],
  statements: [],
  count: [],
  'first bm25': [],
  ranked: [],
  matched: [],
};
// FTS_WARM_PASSES=n: the queries' searches run n times over first, as a server's earlier searches would (the
// pages they read then sit in SQLite's cache when it is large enough); 'first search' is then the next pass.
const queries = benchQueries(QUERIES);
for (let pass = 0; pass < Number(process.env.FTS_WARM_PASSES ?? 0); pass++)
  for (const query of queries) keywords.search(keywords.plan(query), ['x'], 40, undefined, true);
for (const query of queries) {
  const plan = keywords.plan(query);
  if (!plan.match) continue;
  const started = performance.now();
  keywords.search(plan, ['x'], 40, undefined, true);
  rows['first search']!.push(performance.now() - started);
  rows.search!.push(timed(() => keywords.search(plan, ['x'], 40, undefined, true)));
  // The statements the search ran: the narrowed ones in turn until 40 rows, then the one-word match.
  let got = 0;
  let statements = 0;
  const sums = { count: 0, first: 0, ranked: 0, matched: 0 };
  for (const match of [...(plan.narrowed ?? []), plan.match]) {
    statements++;
    const n = count.get(match)!.n;
    sums.matched += n;
    sums.count += timed(() => count.get(match));
    sums.first += timed(() => first.get(match));
    sums.ranked += timed(() => ranked.all(match));
    got += n;
    if (got >= 40) break;
  }
  rows.statements!.push(statements);
  rows.count!.push(sums.count);
  rows['first bm25']!.push(sums.first);
  rows.ranked!.push(sums.ranked);
  rows.matched!.push(sums.matched);
}
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
for (const [name, values] of Object.entries(rows)) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`${name.padEnd(12)} p50 ${quantile(values, 0.5).toFixed(3)} p90 ${quantile(values, 0.9).toFixed(3)} mean ${mean.toFixed(3)}`);
}
