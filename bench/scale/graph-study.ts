/**
 * Offline study of HNSW graph parameters on the scale bench's own vectors (issue 24; docs/performance.md,
 * "Scale", "Graph parameters"). Reads the vectors and queries written by the study's generator (the
 * bench corpus's `TopicAverageEmbedder`, 300 tight topics; `VECTORS`, `QUERIES`), builds one graph of the
 * first `N` vectors (one shard's worth: a shard of a store is every S-th chunk, the same distribution) with
 * `M` and `EFC`, then for each beam in `EFS` measures recall@`K` against exact search over the same `N`
 * vectors (100 queries) and the CPU of each search (process.cpuUsage: the process's own, whatever else
 * runs on the machine). Run one at a time, niced:
 *
 *   N=100000 M=16 EFC=100 nice -n 19 npx tsx bench/scale/graph-study.ts
 *
 * Exact references are cached as `exact-<N>.json` in `DIR`, graphs as `graph-<N>-<M>-<EFC>.hnsw`.
 *
 * With `FILES=a.hnsw,b.hnsw` (the shards of one store of `N` chunks, built elsewhere), nothing is built:
 * each query searches every shard with the beam and merges, like `StoreGraphs.search`, and the CPU of
 * all shards (and of the slowest) is reported.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import defaultHnswlib from 'hnswlib-node';

/** `HNSW_ADDON=/path/addon.node`: another build of hnswlib-node's addon (say, compiled with `-march=native`). */
const hnswlib: typeof defaultHnswlib = process.env.HNSW_ADDON ? createRequire(import.meta.url)(process.env.HNSW_ADDON) : defaultHnswlib;

const DIR = process.env.DIR ?? '/tmp/gp-study';
const VECTORS = process.env.VECTORS ?? '/tmp/scale-study/vectors-1000000.f32';
const QUERIES = process.env.QUERIES ?? '/tmp/scale-study/queries-1000000.f32';
const N = Number(process.env.N ?? 100_000);
const M = Number(process.env.M ?? 16);
const EFC = Number(process.env.EFC ?? 100);
const K = Number(process.env.K ?? 8);
const EFS = (process.env.EFS ?? '200,400,600,800,1200,1600,2400,3200,4000').split(',').map(Number);
const D = 384;
const Q = 100;

const SHARDS = Number(process.env.SHARDS ?? 1);
if (process.env.FILES && process.env.SHARD !== undefined) {
  // One shard's graph alone (chunk i in shard i % SHARDS), against an exact search over that shard's vectors.
  const shard = Number(process.env.SHARD);
  const exactPath = join(DIR, `exact-${N}-${shard}of${SHARDS}.json`);
  if (!existsSync(exactPath)) {
    const exactIndex = new hnswlib.BruteforceSearch('cosine', D);
    exactIndex.initIndex(Math.ceil(N / SHARDS) + 16);
    const fd = openSync(VECTORS, 'r');
    const batch = new Float32Array(100_000 * D);
    for (let start = 0; start < N; start += 100_000) {
      readSync(fd, new Uint8Array(batch.buffer), 0, batch.byteLength, start * D * 4);
      for (let i = start; i < start + 100_000; i++) {
        if (i % SHARDS === shard) exactIndex.addPoint(Array.from(batch.subarray((i - start) * D, (i - start + 1) * D)), i);
      }
    }
    closeSync(fd);
    const queries = new Float32Array(readFileSync(QUERIES).buffer.slice(0, Q * D * 4));
    const answers = Array.from(
      { length: Q },
      (_, qi) => exactIndex.searchKnn(Array.from(queries.subarray(qi * D, (qi + 1) * D)), K).neighbors,
    );
    writeFileSync(exactPath, JSON.stringify(answers));
  }
  shardPair(process.env.FILES.split(','), exactPath);
  process.exit(0);
}
if (process.env.FILES) {
  shardPair(process.env.FILES.split(','));
  process.exit(0);
}
if (SHARDS > 1) {
  // Builds the shards of a store of N chunks (chunk i in shard i % SHARDS), one after the other, then searches them.
  const files = Array.from({ length: SHARDS }, (_, shard) => join(DIR, `graph-${N}-${shard}of${SHARDS}-${M}-${EFC}.hnsw`));
  const fd = openSync(VECTORS, 'r');
  const batch = new Float32Array(100_000 * D);
  files.forEach((file, shard) => {
    if (existsSync(file)) return;
    const index = new hnswlib.HierarchicalNSW('cosine', D);
    index.initIndex({ maxElements: Math.ceil(N / SHARDS) + 16, m: M, efConstruction: EFC, randomSeed: 100 });
    const wall = performance.now();
    const cpu = process.cpuUsage();
    for (let start = 0; start < N; start += 100_000) {
      readSync(fd, new Uint8Array(batch.buffer), 0, batch.byteLength, start * D * 4);
      for (let i = start; i < start + 100_000; i++) {
        if (i % SHARDS === shard) index.addPoint(Array.from(batch.subarray((i - start) * D, (i - start + 1) * D)), i);
      }
    }
    const used = process.cpuUsage(cpu);
    const seconds = (used.user + used.system) / 1e6;
    console.log(
      `N=${N} shard ${shard} of ${SHARDS} M=${M} efC=${EFC}: build ${((performance.now() - wall) / 1000).toFixed(0)} s wall, ${seconds.toFixed(0)} s CPU = ${(N / SHARDS / seconds).toFixed(0)} vectors per CPU-second`,
    );
    index.writeIndexSync(file);
  });
  closeSync(fd);
  shardPair(files);
  process.exit(0);
}

const data = new Float32Array(N * D);
const fd = openSync(VECTORS, 'r');
readSync(fd, new Uint8Array(data.buffer), 0, N * D * 4, 0);
closeSync(fd);
const queries = new Float32Array(readFileSync(QUERIES).buffer.slice(0, Q * D * 4));
const unit = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  return Math.sqrt(n) || 1;
};

const exactPath = join(DIR, `exact-${N}.json`);
let exact: number[][];
if (existsSync(exactPath)) exact = JSON.parse(readFileSync(exactPath, 'utf8'));
else {
  const norms = new Float32Array(N);
  for (let i = 0; i < N; i++) norms[i] = unit(data.subarray(i * D, (i + 1) * D));
  exact = [];
  for (let qi = 0; qi < Q; qi++) {
    const qv = queries.subarray(qi * D, (qi + 1) * D);
    const best: Array<{ i: number; s: number }> = [];
    for (let i = 0; i < N; i++) {
      let s = 0;
      const b = i * D;
      for (let d = 0; d < D; d++) s += (qv[d] as number) * (data[b + d] as number);
      s /= norms[i] as number;
      if (best.length < 40 || s > (best[best.length - 1] as { s: number }).s) {
        best.push({ i, s });
        best.sort((a, c) => c.s - a.s);
        if (best.length > 40) best.pop();
      }
    }
    exact.push(best.map((x) => x.i));
  }
  writeFileSync(exactPath, JSON.stringify(exact));
}

const path = join(DIR, `graph-${N}-${M}-${EFC}.hnsw`);
const index = new hnswlib.HierarchicalNSW('cosine', D);
let build = '';
if (existsSync(path)) index.readIndexSync(path);
else {
  index.initIndex({ maxElements: N, m: M, efConstruction: EFC, randomSeed: 100 });
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < N; i++) index.addPoint(Array.from(data.subarray(i * D, (i + 1) * D)), i);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - wall) / 1000;
  build = `build ${seconds.toFixed(0)} s wall, ${((used.user + used.system) / 1e6).toFixed(0)} s CPU = ${(N / ((used.user + used.system) / 1e6)).toFixed(0)} vectors per CPU-second`;
  index.writeIndexSync(path);
}
const bytes = statSync(path).size;
console.log(
  `N=${N} M=${M} efC=${EFC}: ${build || 'read from file'}; file ${(bytes / 1e6).toFixed(0)} MB = ${(bytes / N).toFixed(0)} bytes/vector`,
);
for (const ef of EFS) {
  index.setEf(ef);
  let hit = 0;
  const times: number[] = [];
  for (let qi = 0; qi < Q; qi++) {
    const qa = Array.from(queries.subarray(qi * D, (qi + 1) * D));
    const c = process.cpuUsage();
    const r = index.searchKnn(qa, K);
    const d = process.cpuUsage(c);
    times.push((d.user + d.system) / 1000);
    const want = new Set((exact[qi] as number[]).slice(0, K));
    hit += r.neighbors.filter((n) => want.has(n)).length;
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `N=${N} M=${M} efC=${EFC} ef=${ef} k=${K}: recall@${K} ${(hit / (Q * K)).toFixed(3)}  CPU p50 ${(times[50] as number).toFixed(2)} ms  mean ${mean.toFixed(2)} ms`,
  );
}

function shardPair(files: string[], exactPath = join(DIR, `exact-${N}.json`)): void {
  const queries = new Float32Array(readFileSync(QUERIES).buffer.slice(0, Q * D * 4));
  const exact: number[][] = JSON.parse(readFileSync(exactPath, 'utf8'));
  const shards = files.map((file) => {
    const index = new hnswlib.HierarchicalNSW('cosine', D);
    index.readIndexSync(file);
    return index;
  });
  for (const ef of EFS) {
    let hit = 0;
    const total: number[] = [];
    const slowest: number[] = [];
    for (let qi = 0; qi < Q; qi++) {
      const qa = Array.from(queries.subarray(qi * D, (qi + 1) * D));
      const found: Array<[number, number]> = [];
      let sum = 0;
      let max = 0;
      for (const index of shards) {
        index.setEf(ef);
        const c = process.cpuUsage();
        const r = index.searchKnn(qa, K);
        const d = process.cpuUsage(c);
        const ms = (d.user + d.system) / 1000;
        sum += ms;
        max = Math.max(max, ms);
        r.neighbors.forEach((n, i) => found.push([n, r.distances[i] as number]));
      }
      total.push(sum);
      slowest.push(max);
      found.sort((a, b) => a[1] - b[1]);
      const want = new Set((exact[qi] as number[]).slice(0, K));
      hit += found.slice(0, K).filter(([n]) => want.has(n)).length;
    }
    total.sort((a, b) => a - b);
    slowest.sort((a, b) => a - b);
    console.log(
      `N=${N} shards=${files.length} ef/shard=${ef} k=${K}: recall@${K} ${(hit / (Q * K)).toFixed(3)}  CPU all shards p50 ${(total[50] as number).toFixed(2)} ms, slowest shard p50 ${(slowest[50] as number).toFixed(2)} ms`,
    );
  }
}
