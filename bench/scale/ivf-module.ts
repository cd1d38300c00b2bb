/**
 * The IVF module (`packages/core/src/vector/ivf/`, issue 24) on the scale bench's 1M vectors (300 tight
 * topics, 384-d; written by the study generator, as `ivf-study.ts` reads them): trains the centroids on a
 * sample, adds every vector, and prints the CPU of training and adding, the memory (the index's bytes and
 * the process RSS), the time to save and load the index file, then recall@8 against the exact top 8 (100
 * queries) and the CPU of one search per nprobe: the module (WebAssembly SIMD kernel) beside `native`, the
 * same lists scanned by hnswlib's `BruteforceSearch` (C++, SIMD; the study's variant) with the centroids in
 * one more `BruteforceSearch`. Then the CPU of filtered searches: few allowed labels (scored exactly through
 * the label map) and many (the probed lists scanned with a filter), which sets `EXACT_FILTER_LABELS`.
 * CPU is `process.cpuUsage` of this one-thread process: what another process on the machine disturbs least.
 *
 *   nice -n 19 node --expose-gc --import tsx bench/scale/ivf-module.ts
 */
import { closeSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import hnswlib from 'hnswlib-node';
import { defaultLists, defaultProbes, IvfIndex, trainCentroids, trainingSampleSize } from '../../packages/core/src/vector/ivf';

const VECTORS = process.env.VECTORS ?? '/tmp/scale-study/vectors-1000000.f32';
const QUERIES = process.env.QUERIES ?? '/tmp/scale-study/queries-1000000.f32';
const EXACT = process.env.EXACT ?? '/tmp/scale-study/exact-1000000.json';
const FILE = process.env.FILE ?? '/tmp/scale-study/ivf-module-1000000.ivf';
const N = Number(process.env.N ?? 1_000_000);
const NPROBES = (process.env.NPROBES ?? '4,8,12,16,24,32').split(',').map(Number);
const VARIANTS = (process.env.VARIANTS ?? 'wasm,native').split(',');
const D = 384;
const K = 8;
const Q = 100;

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const mb = (bytes: number) => `${Math.round(bytes / 1e6).toLocaleString('en-US')} MB`;
const rss = () => mb(process.memoryUsage().rss);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
let seed = 12_345;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const stats = (times: number[]) => {
  times.sort((a, b) => a - b);
  return `CPU p50 ${times[times.length >> 1]!.toFixed(2)} ms, mean ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(2)} ms`;
};

console.log(
  `ivf-module: ${N.toLocaleString('en-US')} vectors, load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const data = new Float32Array(N * D);
const fd = openSync(VECTORS, 'r');
for (let start = 0; start < N; start += 100_000) {
  const count = Math.min(100_000, N - start);
  readSync(fd, new Uint8Array(data.buffer, start * D * 4, count * D * 4), 0, count * D * 4, start * D * 4);
}
closeSync(fd);
const queries = new Float32Array(readFileSync(QUERIES).buffer.slice(0, Q * D * 4));
const exact = JSON.parse(readFileSync(EXACT, 'utf8')) as number[][];
const query = (q: number) => queries.subarray(q * D, (q + 1) * D);
console.log(`loaded; RSS ${rss()}`);

// ---- training ---------------------------------------------------------------------------------------------
const lists = defaultLists(N);
const sampleSize = Math.min(N, trainingSampleSize(lists));
const sample = new Float32Array(sampleSize * D);
for (let i = 0; i < sampleSize; i++) {
  const row = Math.floor(random() * N);
  sample.set(data.subarray(row * D, (row + 1) * D), i * D);
}
let before = cpu();
const centroids = trainCentroids(sample, { dimensions: D, lists });
console.log(
  `train: ${lists} lists on ${sampleSize.toLocaleString('en-US')} vectors, 8 iterations: ${((cpu() - before) / 1000).toFixed(1)} s CPU`,
);

// ---- adding -----------------------------------------------------------------------------------------------
let index: IvfIndex | undefined = new IvfIndex({ dimensions: D, centroids });
const rssBeforeAdd = process.memoryUsage().rss;
before = cpu();
const BATCH = 10_000;
for (let from = 0; from < N; from += BATCH) {
  const to = Math.min(N, from + BATCH);
  index.add(
    Array.from({ length: to - from }, (_, i) => from + i),
    data.subarray(from * D, to * D),
  );
}
const addMs = cpu() - before;
const sizes = index
  .listsForSave()
  .map((list) => list.count)
  .sort((a, b) => a - b);
console.log(
  `add: ${(addMs / 1000).toFixed(1)} s CPU (${((addMs / N) * 1000).toFixed(1)} µs a vector); list sizes min ${sizes[0]} p50 ${sizes[lists >> 1]} max ${sizes[lists - 1]}`,
);
console.log(`memory: index ${mb(index.bytes)}; RSS ${rss()} (+${mb(process.memoryUsage().rss - rssBeforeAdd)} while adding)`);

// ---- searches ---------------------------------------------------------------------------------------------
const native: Array<InstanceType<typeof hnswlib.BruteforceSearch>> = [];
const centroidSearch = new hnswlib.BruteforceSearch('ip', D);
if (VARIANTS.includes('native')) {
  before = cpu();
  centroidSearch.initIndex(lists);
  const stored = index.centroids();
  for (let c = 0; c < lists; c++) centroidSearch.addPoint(Array.from(stored.subarray(c * D, (c + 1) * D)), c);
  index.listsForSave().forEach((list, c) => {
    const search = new hnswlib.BruteforceSearch('ip', D);
    search.initIndex(Math.max(1, list.count));
    // The module's 8-bit rows decoded to floats (values x the row's scale).
    for (let slot = 0; slot < list.count; slot++) {
      const row = index!.bytesAt(index!.rowOf(c, slot), index!.rowBytes);
      const scale = new Float32Array(row.buffer, row.byteOffset + index!.stride, 1)[0]!;
      search.addPoint(
        Array.from(new Int8Array(row.buffer, row.byteOffset, D), (value) => value * scale),
        list.labels[slot]!,
      );
    }
    native.push(search);
  });
  console.log(`native lists built (${((cpu() - before) / 1000).toFixed(1)} s CPU); RSS ${rss()}`);
}
function searchNative(vector: Float32Array, nprobe: number): number[] {
  const q = Array.from(vector);
  const probed = centroidSearch.searchKnn(q, nprobe).neighbors;
  const found: Array<{ id: number; score: number }> = [];
  for (const c of probed) {
    const list = native[c]!;
    const count = list.getCurrentCount();
    if (count === 0) continue;
    const result = list.searchKnn(q, Math.min(K, count));
    result.neighbors.forEach((id, i) => found.push({ id, score: -result.distances[i]! }));
  }
  return found
    .sort((a, b) => b.score - a.score)
    .slice(0, K)
    .map(({ id }) => id);
}
const searchAll = (at: IvfIndex, nprobe: number) => Array.from({ length: Q }, (_, q) => at.search(query(q), K, { nprobe }));
for (const nprobe of NPROBES) {
  for (const variant of VARIANTS) {
    let found = 0;
    const times: number[] = [];
    for (let q = 0; q < Q; q++) {
      const start = cpu();
      const labels = variant === 'native' ? searchNative(query(q), nprobe) : index.search(query(q), K, { nprobe }).map((hit) => hit.label);
      times.push(cpu() - start);
      const truth = new Set(exact[q]!.slice(0, K));
      found += labels.filter((label) => truth.has(label)).length;
    }
    console.log(`${variant.padEnd(6)} nprobe ${String(nprobe).padStart(2)}: recall@8 ${(found / (Q * K)).toFixed(3)}, ${stats(times)}`);
  }
}
native.length = 0;

// ---- filtered searches: exact over few labels, the probed lists over many -------------------------------
const rangesOf = (labels: number, width: number) => {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < labels / width; i++) {
    const first = Math.floor(random() * (N - width));
    pairs.push([first, first + width - 1]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const flat: number[] = [];
  for (const [first, last] of pairs) {
    if (flat.length > 0 && first <= flat[flat.length - 1]! + 1) flat[flat.length - 1] = Math.max(flat[flat.length - 1]!, last);
    else flat.push(first, last);
  }
  return Float64Array.from(flat);
};
// Each filter both ways: scored exactly through the map (`exactLimit` Infinity) and by the probed lists (0).
console.log(`exact filter limit at nprobe ${defaultProbes(lists)}: ${index.exactFilterLimit().toLocaleString('en-US')} labels`);
for (const [labels, width] of [
  [1_000, 1],
  [1_000, 100],
  [4_000, 100],
  [8_000, 100],
  [16_000, 100],
  [100_000, 1_000],
  [500_000, 10_000],
] as const) {
  const allowed = rangesOf(labels, width);
  for (const [plan, exactLimit] of [
    ['exact', Number.POSITIVE_INFINITY],
    ['lists', 0],
  ] as const) {
    if (plan === 'exact' && labels > 20_000) continue;
    const times: number[] = [];
    let held = 0;
    for (let q = 0; q < Q; q++) {
      const start = cpu();
      held += index.search(query(q), K, { allowed, exactLimit }).length;
      times.push(cpu() - start);
    }
    console.log(
      `filter of ~${labels.toLocaleString('en-US')} labels (ranges of ${width}), ${plan}: ${stats(times)}, ${(held / Q).toFixed(1)} hits`,
    );
  }
}

// ---- the file ---------------------------------------------------------------------------------------------
const nprobe = defaultProbes(lists);
const answers = JSON.stringify(searchAll(index, nprobe));
let wall = performance.now();
before = cpu();
index.save(FILE);
console.log(
  `save: ${mb(statSync(FILE).size)} in ${((performance.now() - wall) / 1000).toFixed(2)} s (${((cpu() - before) / 1000).toFixed(2)} s CPU)`,
);
index = undefined;
gc();
wall = performance.now();
before = cpu();
const loaded = IvfIndex.load(FILE);
console.log(`load: ${((performance.now() - wall) / 1000).toFixed(2)} s (${((cpu() - before) / 1000).toFixed(2)} s CPU); RSS ${rss()}`);
console.log(
  `loaded answers ${JSON.stringify(searchAll(loaded, nprobe)) === answers ? 'equal' : 'DIFFER from'} the saved index's (nprobe ${nprobe})`,
);
rmSync(FILE, { force: true });
