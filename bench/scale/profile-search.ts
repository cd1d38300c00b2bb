/**
 * Where a hybrid search's time goes on a kept scale data dir (issue 24): opens Fathom in this process on
 * `FATHOM_DATA_DIR` (a copy: the store is only read) and runs the scale bench's queries in hybrid mode,
 * timing each part of `ScopeSearch.run` by wrapping it — the keyword plan, the FTS5 query, the vector
 * side (posted to the graph workers, from the post to its answer), the candidate rows read and the
 * fusion — and printing per query the plan (groups, document frequencies, which are searched) and how
 * many rows FTS5 matched. Whether the two sides overlap shows in `vector waited`: the time the search
 * still waited for the workers after the keyword side had ended.
 *
 *   FATHOM_DATA_DIR=/tmp/copy nice -n 19 npx tsx --conditions=fathom-source bench/scale/profile-search.ts [queries]
 *
 * With `PROFILE_WAIT_IVF=1` it first waits until the store is served by IVF indexes (a store above
 * `FATHOM_IVF_ABOVE_CHUNKS` opened from graphs converts in the background), printing the process's RSS and
 * CPU meanwhile, so the figures are the IVF's.
 */
import { Fathom } from '../../packages/core/src';
import { KeywordIndex, type KeywordPlan } from '../../packages/core/src/vector/keyword-index';
import { VectorCandidates } from '../../packages/core/src/vector/vector-candidates';
import { benchQueries, TopicAverageEmbedder } from './corpus';

const QUERIES = Number(process.argv[2] ?? 200);
const VERBOSE = process.env.PROFILE_VERBOSE === '1';
const MODE = (process.env.PROFILE_MODE ?? 'hybrid') as 'hybrid' | 'vector' | 'keyword';
const storeId = (
  JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(`${process.env.FATHOM_DATA_DIR}/scale-bench.json`, 'utf8'))) as {
    storeIds: string[];
  }
).storeIds[0]!;

interface Sample {
  plan: number;
  keyword: number;
  vector: number;
  vectorWaited: number;
  total: number;
  rows: number;
  matched: number;
  searchedPostings: number;
}
let current: Partial<Sample> & { vectorPostedAt?: number; keywordEndedAt?: number; vectorEndedAt?: number } = {};
let lastPlan: KeywordPlan | undefined;

const plan = KeywordIndex.prototype.plan;
KeywordIndex.prototype.plan = function (this: KeywordIndex, query: string) {
  const started = performance.now();
  const result = plan.call(this, query);
  current.plan = performance.now() - started;
  lastPlan = result;
  return result;
};
const search = KeywordIndex.prototype.search;
KeywordIndex.prototype.search = function (this: KeywordIndex, ...args: Parameters<KeywordIndex['search']>) {
  const started = performance.now();
  const result = search.apply(this, args);
  current.keywordEndedAt = performance.now();
  current.keyword = current.keywordEndedAt - started;
  return result;
};
const find = VectorCandidates.prototype.find;
VectorCandidates.prototype.find = function (this: VectorCandidates, ...args: Parameters<VectorCandidates['find']>) {
  current.vectorPostedAt = performance.now();
  return find.apply(this, args).then((ids) => {
    current.vectorEndedAt = performance.now();
    return ids;
  });
};

const fathom = await Fathom.open({ embedder: new TopicAverageEmbedder(), start: false });
const raw = (fathom.vectorIndex as unknown as { db: { prepare(sql: string): { get(...args: unknown[]): unknown } } }).db;
const countMatches = raw.prepare('SELECT count(*) AS n FROM vector_fts WHERE vector_fts MATCH ?');
// The candidate rows: timed around the statement ScopeSearch reads them with.
const scope = (fathom.vectorIndex as unknown as { scopeSearch: { sql: { candidates: { all(...args: unknown[]): unknown[] } } } })
  .scopeSearch;
const candidates = scope.sql.candidates;
const readRows = candidates.all.bind(candidates);
candidates.all = (...args: unknown[]) => {
  const started = performance.now();
  const rows = readRows(...args);
  current.rows = performance.now() - started;
  return rows;
};

const queries = benchQueries(QUERIES);
const run = (query: string) => fathom.vectorIndex.search([storeId], { query, mode: MODE, maxNumResults: 10 });
if (process.env.PROFILE_WAIT_IVF === '1') {
  const index = fathom.vectorIndex as unknown as { vectorIndexOf(storeId: string): string | undefined };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let peakRss = 0;
  await run(queries[0]!);
  while (index.vectorIndexOf(storeId) !== 'ivf') {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    await run(queries[0]!);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    `IVF switch done after ${((performance.now() - started) / 1000).toFixed(1)} s; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB, now ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
  );
}
for (const query of queries.slice(0, 20)) await run(query);
// Measured once the planner's vocabulary copy is in memory (the steady state; see node.ts).
await (fathom.vectorIndex as unknown as { keywords: { vocabularyScanned(): Promise<boolean> } }).keywords.vocabularyScanned();
const samples: Sample[] = [];
const cpuStarted = process.cpuUsage();
for (const query of queries) {
  current = {};
  const started = performance.now();
  await run(query);
  const total = performance.now() - started;
  const matched = lastPlan?.match ? (countMatches.get(lastPlan.match) as { n: number }).n : 0;
  const searched = lastPlan?.groups.filter((group) => group.searched) ?? [];
  const sample: Sample = {
    plan: current.plan ?? 0,
    keyword: current.keyword ?? 0,
    vector: (current.vectorEndedAt ?? 0) - (current.vectorPostedAt ?? 0),
    vectorWaited: Math.max(0, (current.vectorEndedAt ?? 0) - (current.keywordEndedAt ?? 0)),
    total,
    rows: current.rows ?? 0,
    matched,
    searchedPostings: searched.reduce((sum, group) => sum + group.documentFrequency, 0),
  };
  samples.push(sample);
  if (VERBOSE)
    console.log(
      `${query.padEnd(60)} total ${total.toFixed(2)} kw ${sample.keyword.toFixed(2)} vec ${sample.vector.toFixed(2)} matched ${matched} | ${lastPlan?.groups
        .map((group) => `${group.searched ? '*' : ''}${group.words[0]}:${group.documentFrequency}`)
        .join(' ')}`,
    );
}

const cpuUsed = process.cpuUsage(cpuStarted);
console.log(`process CPU per query (every thread): ${((cpuUsed.user + cpuUsed.system) / 1000 / QUERIES).toFixed(2)} ms`);
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const line = (name: keyof Sample, unit = 'ms') => {
  const values = samples.map((sample) => sample[name]);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  console.log(
    `${name.padEnd(16)} p50 ${quantile(values, 0.5).toFixed(2)} p90 ${quantile(values, 0.9).toFixed(2)} p99 ${quantile(values, 0.99).toFixed(2)} mean ${mean.toFixed(2)} ${unit}`,
  );
};
console.log(`${MODE}, one store, ${QUERIES} queries (after 20 warm-up), wall per part:`);
for (const name of ['total', 'plan', 'keyword', 'vector', 'vectorWaited', 'rows'] as const) line(name);
line('matched', 'rows');
line('searchedPostings', 'postings');
await fathom.close();
