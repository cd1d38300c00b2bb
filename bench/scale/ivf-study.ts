/**
 * Offline study (issue 24): what an inverted-file index (IVF: vectors grouped under k-means centroids, a
 * search scanning the lists of the nearest centroids exactly) would spend per query on the scale bench's
 * 1M vectors (300 tight topics, 384-d), against the HNSW shards Fathom uses. Nothing in Fathom uses it; it
 * measures whether "an index that scans the query's topic" is the next step for the 1M hybrid target.
 *
 * Reads the study generator's vectors and queries (`VECTORS`, `QUERIES`, as `graph-study.ts`) and its
 * exact top 8 (`EXACT`), trains `LISTS` spherical k-means centroids on a sample (`SAMPLE`, `ITERATIONS`;
 * assignment through an HNSW graph of the centroids), assigns every vector, then for each `NPROBES` value
 * measures recall@8 and the CPU of one search (this process, one thread): the centroid graph's search plus
 * an exact scan of the probed lists (`VARIANTS`): `native`, each list an hnswlib `BruteforceSearch` (C++,
 * the SIMD distance of Fathom's graphs, vectors contiguous); `float32`, a JavaScript loop; `int8`, a
 * JavaScript loop over scalar-quantised vectors, the top `RESCORE` re-scored in float32.
 *
 *   LISTS=1000 nice -n 19 npx tsx bench/scale/ivf-study.ts
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import hnswlib from 'hnswlib-node';

const VECTORS = process.env.VECTORS ?? '/tmp/scale-study/vectors-1000000.f32';
const QUERIES = process.env.QUERIES ?? '/tmp/scale-study/queries-1000000.f32';
const EXACT = process.env.EXACT ?? '/tmp/scale-study/exact-1000000.json';
const N = Number(process.env.N ?? 1_000_000);
const LISTS = Number(process.env.LISTS ?? 1_000);
const SAMPLE = Number(process.env.SAMPLE ?? 50_000);
const ITERATIONS = Number(process.env.ITERATIONS ?? 6);
const NPROBES = (process.env.NPROBES ?? '2,4,8,16,32').split(',').map(Number);
const RESCORE = Number(process.env.RESCORE ?? 64);
const VARIANTS = (process.env.VARIANTS ?? 'native,float32,int8').split(',');
const D = 384;
const K = 8;
const Q = 100;

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const normalise = (v: Float32Array) => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const s = 1 / (Math.sqrt(n) || 1);
  for (let i = 0; i < v.length; i++) v[i]! *= s;
};
const dot = (a: Float32Array, b: Float32Array, offset: number) => {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let d = 0; d < D; d += 4) {
    s0 += a[d]! * b[offset + d]!;
    s1 += a[d + 1]! * b[offset + d + 1]!;
    s2 += a[d + 2]! * b[offset + d + 2]!;
    s3 += a[d + 3]! * b[offset + d + 3]!;
  }
  return s0 + s1 + s2 + s3;
};

const started = cpu();
const data = new Float32Array(N * D);
const fd = openSync(VECTORS, 'r');
for (let start = 0; start < N; start += 100_000) {
  const count = Math.min(100_000, N - start);
  readSync(fd, new Uint8Array(data.buffer, start * D * 4, count * D * 4), 0, count * D * 4, start * D * 4);
}
closeSync(fd);
for (let i = 0; i < N; i++) normalise(data.subarray(i * D, (i + 1) * D));
const queries = new Float32Array(readFileSync(QUERIES).buffer.slice(0, Q * D * 4));
for (let q = 0; q < Q; q++) normalise(queries.subarray(q * D, (q + 1) * D));
const exact = JSON.parse(readFileSync(EXACT, 'utf8')) as number[][];
console.log(`loaded ${N.toLocaleString('en-US')} vectors (${((cpu() - started) / 1000).toFixed(1)} s CPU)`);

// ---- spherical k-means on a sample --------------------------------------------------------------------
let seed = 12345;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const sample = Array.from({ length: SAMPLE }, () => Math.floor(random() * N));
const centroids = new Float32Array(LISTS * D);
for (let c = 0; c < LISTS; c++) centroids.set(data.subarray(sample[c]! * D, (sample[c]! + 1) * D), c * D);
const graphOf = (points: Float32Array) => {
  const graph = new hnswlib.HierarchicalNSW('ip', D);
  graph.initIndex({ maxElements: LISTS, m: 16, efConstruction: 100, randomSeed: 100 });
  for (let c = 0; c < LISTS; c++) graph.addPoint(Array.from(points.subarray(c * D, (c + 1) * D)), c);
  return graph;
};
const trainStarted = cpu();
let graph = graphOf(centroids);
for (let iteration = 0; iteration < ITERATIONS; iteration++) {
  graph.setEf(64);
  const sums = new Float64Array(LISTS * D);
  const counts = new Int32Array(LISTS);
  for (const i of sample) {
    const vector = data.subarray(i * D, (i + 1) * D);
    const c = graph.searchKnn(Array.from(vector), 1).neighbors[0]!;
    counts[c]!++;
    for (let d = 0; d < D; d++) sums[c * D + d]! += vector[d]!;
  }
  for (let c = 0; c < LISTS; c++) {
    // An empty list takes a random sample point again.
    if (counts[c] === 0) centroids.set(data.subarray(sample[Math.floor(random() * SAMPLE)]! * D, 0), c * D);
    else for (let d = 0; d < D; d++) centroids[c * D + d] = sums[c * D + d]! / counts[c]!;
    normalise(centroids.subarray(c * D, (c + 1) * D));
  }
  graph = graphOf(centroids);
}
console.log(
  `k-means: ${LISTS} lists, ${SAMPLE.toLocaleString('en-US')} samples, ${ITERATIONS} iterations: ${((cpu() - trainStarted) / 1000).toFixed(1)} s CPU`,
);

// ---- every vector to its list ---------------------------------------------------------------------------
const assignStarted = cpu();
graph.setEf(64);
const listOf = new Int32Array(N);
const sizes = new Int32Array(LISTS);
for (let i = 0; i < N; i++) {
  listOf[i] = graph.searchKnn(Array.from(data.subarray(i * D, (i + 1) * D)), 1).neighbors[0]!;
  sizes[listOf[i]!]!++;
}
const assignMs = cpu() - assignStarted;
const offsets = new Int32Array(LISTS + 1);
for (let c = 0; c < LISTS; c++) offsets[c + 1] = offsets[c]! + sizes[c]!;
const ids = new Int32Array(N);
const vectors = new Float32Array(N * D);
const quantised = new Int8Array(N * D);
const fill = offsets.slice(0, LISTS);
for (let i = 0; i < N; i++) {
  const at = fill[listOf[i]!]!++;
  ids[at] = i;
  vectors.set(data.subarray(i * D, (i + 1) * D), at * D);
  for (let d = 0; d < D; d++) quantised[at * D + d] = Math.max(-127, Math.min(127, Math.round(data[i * D + d]! * 127 * 4)));
}
const sorted = [...sizes].sort((a, b) => a - b);
console.log(
  `assigned: ${(assignMs / N).toFixed(3)} ms CPU per vector; list sizes min ${sorted[0]} p50 ${sorted[LISTS >> 1]} max ${sorted[LISTS - 1]}`,
);

// ---- searches -------------------------------------------------------------------------------------------
const top = (scores: Array<{ id: number; score: number }>, k: number) => scores.sort((a, b) => b.score - a.score).slice(0, k);
function search(query: Float32Array, nprobe: number, int8: boolean): { found: number[]; scanned: number } {
  graph.setEf(Math.max(64, 2 * nprobe));
  const lists = graph.searchKnn(Array.from(query), nprobe).neighbors;
  const q8 = new Int8Array(D);
  if (int8) for (let d = 0; d < D; d++) q8[d] = Math.max(-127, Math.min(127, Math.round(query[d]! * 127 * 4)));
  const keep = int8 ? RESCORE : K;
  const best: Array<{ id: number; score: number }> = [];
  let floor = -Infinity;
  let scanned = 0;
  for (const c of lists) {
    for (let at = offsets[c]!; at < offsets[c + 1]!; at++) {
      let score: number;
      if (int8) {
        score = 0;
        const base = at * D;
        for (let d = 0; d < D; d++) score += q8[d]! * quantised[base + d]!;
      } else score = dot(query, vectors, at * D);
      scanned++;
      if (best.length < keep || score > floor) {
        best.push({ id: at, score });
        if (best.length > 2 * keep) {
          top(best, keep);
          best.length = keep;
          floor = best[keep - 1]!.score;
        }
      }
    }
  }
  const candidates = top(best, keep);
  const final = int8
    ? top(
        candidates.map(({ id }) => ({ id, score: dot(query, vectors, id * D) })),
        K,
      )
    : candidates;
  return { found: final.map(({ id }) => ids[id]!), scanned };
}
const native: Array<InstanceType<typeof hnswlib.BruteforceSearch>> = [];
if (VARIANTS.includes('native')) {
  for (let c = 0; c < LISTS; c++) {
    const list = new hnswlib.BruteforceSearch('ip', D);
    list.initIndex(Math.max(1, sizes[c]!));
    for (let at = offsets[c]!; at < offsets[c + 1]!; at++) list.addPoint(Array.from(vectors.subarray(at * D, (at + 1) * D)), ids[at]!);
    native.push(list);
  }
}
function searchNative(query: Float32Array, nprobe: number): { found: number[]; scanned: number } {
  graph.setEf(Math.max(64, 2 * nprobe));
  const q = Array.from(query);
  const lists = graph.searchKnn(q, nprobe).neighbors;
  const found: Array<{ id: number; score: number }> = [];
  let scanned = 0;
  for (const c of lists) {
    const list = native[c]!;
    const count = list.getCurrentCount();
    scanned += count;
    if (count === 0) continue;
    const result = list.searchKnn(q, Math.min(K, count));
    result.neighbors.forEach((id, i) => found.push({ id, score: -result.distances[i]! }));
  }
  return { found: top(found, K).map(({ id }) => id), scanned };
}
for (const variant of VARIANTS) {
  const int8 = variant === 'int8';
  for (const nprobe of NPROBES) {
    let found = 0;
    let scanned = 0;
    const times: number[] = [];
    for (let q = 0; q < Q; q++) {
      const before = cpu();
      const query = queries.subarray(q * D, (q + 1) * D);
      const result = variant === 'native' ? searchNative(query, nprobe) : search(query, nprobe, int8);
      times.push(cpu() - before);
      const truth = new Set(exact[q]!.slice(0, K));
      found += result.found.filter((id) => truth.has(id)).length;
      scanned += result.scanned;
    }
    times.sort((a, b) => a - b);
    console.log(
      `${variant} nprobe ${String(nprobe).padStart(3)}: recall@8 ${(found / (Q * K)).toFixed(3)}, ${Math.round(scanned / Q).toLocaleString('en-US')} vectors scanned, CPU p50 ${times[Q >> 1]!.toFixed(2)} ms, mean ${(times.reduce((a, b) => a + b, 0) / Q).toFixed(2)} ms`,
    );
  }
}
