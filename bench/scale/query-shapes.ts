/**
 * Search latency by the shape of the query, on a kept scale data dir (issue 24; decision
 * 2026-11-27-bm25-floor). The scale bench's queries are eight words of one topic: their rarer words occur
 * together, so the keyword plan's intersections fill the candidates cheaply. Here each query is
 * `how does A B C work` with three words that do not occur together, drawn from one band of document
 * frequency (the chunks holding the word), so the keyword side scores every chunk holding the rarest of them.
 * Per band: hybrid, keyword and vector wall time (p50, p90, max), each query searched once per mode, the modes
 * taking turns. Opens Fathom in this process on `FATHOM_DATA_DIR` (the store is only read).
 *
 *   FATHOM_DATA_DIR=/tmp/copy npx tsx --conditions=fathom-source bench/scale/query-shapes.ts [queries per band]
 */
import { readFileSync } from 'node:fs';
import { Fathom } from '../../packages/core/src';
import { benchQueries, TopicAverageEmbedder } from './corpus';

const PER_BAND = Number(process.argv[2] ?? 20);
const BANDS: Array<[number, number]> = [
  [1_000, 3_000],
  [5_000, 15_000],
  [15_000, 40_000],
  [40_000, 100_000],
];
const MODES = ['hybrid', 'keyword', 'vector'] as const;

const dataDir = process.env.FATHOM_DATA_DIR;
if (!dataDir) throw new Error('Set FATHOM_DATA_DIR to a kept scale data dir (a copy: the store is only read).');
const { storeIds } = JSON.parse(readFileSync(`${dataDir}/scale-bench.json`, 'utf8')) as { storeIds: string[] };
const storeId = storeIds[0]!;
const fathom = await Fathom.open({ embedder: new TopicAverageEmbedder(), start: false });
const raw = (fathom.vectorIndex as unknown as { db: { prepare(sql: string): { all(...args: unknown[]): unknown[] } } }).db;
// Words of a band in a fixed, scrambled order (from each word's first letter, length and chunk count), so the
// three words of a query seldom share a topic.
const wordsOf = raw.prepare(
  'SELECT term, doc FROM vector_fts_vocab WHERE doc BETWEEN ? AND ? AND length(term) > 2 ORDER BY (unicode(term) * 7919 + length(term) * 104729 + doc) % 10007',
);
const search = (query: string, mode: (typeof MODES)[number]) => fathom.vectorIndex.search([storeId], { query, mode, maxNumResults: 10 });

// The steady state, as the scale bench's latency phase has it (node.ts): 20 of its queries in every mode,
// then the planner's vocabulary copy read.
for (const query of benchQueries(20)) for (const mode of MODES) await search(query, mode);
await (fathom.vectorIndex as unknown as { keywords: { vocabularyScanned(): Promise<boolean> } }).keywords.vocabularyScanned();

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
console.log(`one store (${storeId}), queries "how does A B C work", three words of one band; wall per search, ms`);
for (const [low, high] of BANDS) {
  const words = wordsOf.all(low, high) as Array<{ term: string; doc: number }>;
  const queries: string[] = [];
  for (let i = 0; i + 2 < words.length && queries.length < PER_BAND; i += 3) {
    queries.push(`how does ${words[i]!.term} ${words[i + 1]!.term} ${words[i + 2]!.term} work`);
  }
  if (queries.length === 0) {
    console.log(`  ${low}-${high} chunks: no words in this band`);
    continue;
  }
  const times = Object.fromEntries(MODES.map((mode) => [mode, [] as number[]])) as Record<(typeof MODES)[number], number[]>;
  for (const [i, query] of queries.entries()) {
    for (let turn = 0; turn < MODES.length; turn++) {
      const mode = MODES[(i + turn) % MODES.length]!;
      const started = performance.now();
      await search(query, mode);
      times[mode].push(performance.now() - started);
    }
  }
  const figures = MODES.map((mode) => {
    const sorted = times[mode].sort((a, b) => a - b);
    return `${mode} ${quantile(sorted, 0.5).toFixed(2)} / ${quantile(sorted, 0.9).toFixed(2)} / ${sorted.at(-1)!.toFixed(2)}`;
  });
  console.log(
    `  rarest word in ${low.toLocaleString('en-US')}-${high.toLocaleString('en-US')} chunks, ${queries.length} queries (p50 / p90 / max): ${figures.join('   ')}`,
  );
}
await fathom.close();
