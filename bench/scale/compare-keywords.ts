/**
 * Keyword plans side by side on a kept scale data dir (issue 24): each bench query searched in `MODE`
 * (default hybrid) with the rarest-word intersections of `KeywordIndex` on and off, taking turns query by
 * query so background load hits both alike; wall and CPU of this process (every thread) per search. The
 * store is only read: point `FATHOM_DATA_DIR` at a copy.
 *
 *   FATHOM_DATA_DIR=/tmp/copy nice -n 19 npx tsx --conditions=fathom-source bench/scale/compare-keywords.ts [queries]
 */
import { readFileSync } from 'node:fs';
import { Fathom } from '../../packages/core/src';
import { benchQueries, TopicAverageEmbedder } from './corpus';

const QUERIES = Number(process.argv[2] ?? 200);
const MODE = (process.env.MODE ?? 'hybrid') as 'hybrid' | 'vector' | 'keyword';
const dataDir = process.env.FATHOM_DATA_DIR!;
const storeId = (JSON.parse(readFileSync(`${dataDir}/scale-bench.json`, 'utf8')) as { storeIds: string[] }).storeIds[0]!;

const fathom = await Fathom.open({ embedder: new TopicAverageEmbedder(), start: false });
// The option is read on each plan: switched between searches.
const keywords = (fathom.vectorIndex as unknown as { keywords: { intersectAbove: number; vocabularyScanned(): Promise<boolean> } })
  .keywords;
const queries = benchQueries(QUERIES);
const search = (query: string) => fathom.vectorIndex.search([storeId], { query, mode: MODE, maxNumResults: 10 });
await search(queries[0]!);
console.log(`vocabulary in memory: ${await keywords.vocabularyScanned()}`);
const variants = { intersect: 500, 'one word': Number.POSITIVE_INFINITY };
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, { wall: [] as number[], cpu: [] as number[] }]));
for (const [round, list] of [
  [0, queries.slice(0, 20)],
  [1, queries],
] as const) {
  for (let i = 0; i < list.length; i++) {
    const names = Object.keys(variants);
    for (let turn = 0; turn < names.length; turn++) {
      const name = names[(i + turn) % names.length]! as keyof typeof variants;
      keywords.intersectAbove = variants[name];
      const cpu = process.cpuUsage();
      const started = performance.now();
      await search(list[i]!);
      if (round === 0) continue;
      times[name]!.wall.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      times[name]!.cpu.push((used.user + used.system) / 1000);
    }
  }
}
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
console.log(
  `${MODE}, ${QUERIES} queries, one store (load ${(await import('node:os'))
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}):`,
);
for (const [name, { wall, cpu }] of Object.entries(times))
  console.log(
    `  ${name.padEnd(10)} wall p50 ${quantile(wall, 0.5).toFixed(2)} p99 ${quantile(wall, 0.99).toFixed(2)} ms   CPU p50 ${quantile(cpu, 0.5).toFixed(2)} p99 ${quantile(cpu, 0.99).toFixed(2)} ms`,
  );
await fathom.close();
