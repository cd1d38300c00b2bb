/**
 * Recall against search effort at scale: Fathom, raw hnswlib, usearch and LanceDB on the same vectors (the
 * scale benchmark's corpus: topical text, 384-d vectors clustered in 300 tight topics), so the fall of
 * recall with store size can be split into what the data does to any HNSW graph and what is Fathom's.
 * For each system and search beam (hnswlib's `ef`, usearch's `expansion_search`, LanceDB's `ef`): recall@8
 * of the vector side against exact search (hnswlib's exact index, as the scale bench), the CPU time of one
 * search (every thread of this process, per call) and its latency, systems taking turns query by query.
 * The answer it prints: per system, the smallest beam of the ladder with recall@8 >= 0.95 and its CPU.
 *
 * All graphs are built with M=16; the peers and raw hnswlib with efConstruction=100, Fathom with its own
 * default (200 since 2026-11-26: decision 2026-11-26-graph-parameters). Fathom builds two shards per store (each
 * its own graph of half the chunks, searched in parallel; its beam is per shard); the peers one graph.
 * Raw hnswlib is the library Fathom's graphs are (hnswlib-node, single-threaded build, the same seed).
 *
 * Run: npm run bench:peers -- scale
 *   CHUNKS=300000 (default 1,000,000); SYSTEMS=fathom,hnswlib,usearch,lancedb (default: all);
 *   BEAMS=400,800,... (the ladder); FATHOM_BEAMS=... (Fathom beams besides its default; each is another
 *   copy of the graphs in memory); HNSWLIB_AVX=<dir of another hnswlib-node build> adds `hnswlib-avx`,
 *   searching the same saved graph with that build (a compiler-flags experiment).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { silentLogger } from '../../packages/core/src/internal/logger';
import { SqliteDatabase } from '../../packages/core/src/storage';
import { VectorIndex, vectorSchema } from '../../packages/core/src/vector';
import { searchBeam } from '../../packages/core/src/vector/graph-parameters';
import { benchQueries, fileAttributes, fileTexts, TopicAverageEmbedder } from '../scale/corpus';
import { exactTopKOfMatrix } from '../scale/exact';
import { machineLoad, percentile } from './stats';

process.env.RUST_LOG ??= 'error';
process.env.LANCEDB_LOG ??= 'error';
// usearch is loaded through `require`: its ES module build finds its native binary from `__dirname` when
// that name is defined, and walks up from a relative `.` forever (`node -e` defines a global `__dirname`
// of `.`), and its CommonJS build is the one that resolves it from its own directory.
const require = createRequire(import.meta.url);
const { Index: USearchIndex } = require('usearch') as typeof import('usearch');

const TOTAL = Number(process.env.CHUNKS ?? 1_000_000);
const PER_FILE = 100;
const QUERIES = 100;
const TOP = 8;
const M = 16;
const EF_CONSTRUCTION = 100;
const RECALL_TARGET = 0.95;
const numbers = (value: string | undefined, fallback: string) => (value ?? fallback).split(',').filter(Boolean).map(Number);
const BEAMS = numbers(process.env.BEAMS, '200,400,800,1600,3200,6400');
const FATHOM_BEAMS = numbers(process.env.FATHOM_BEAMS, '');
const SYSTEMS = new Set((process.env.SYSTEMS ?? 'fathom,hnswlib,usearch,lancedb').split(','));

const dir = mkdtempSync(join(tmpdir(), 'fathom-peers-scale-'));
const embedder = new TopicAverageEmbedder();
const dims = embedder.dimensions;
const seconds = (started: number) => ((performance.now() - started) / 1000).toFixed(1);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const rate = (started: number) => (TOTAL / ((performance.now() - started) / 1000)).toFixed(0);
console.log(`Recall at scale — ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${machineLoad()} at start`);

// ---- corpus and the exact answers -----------------------------------------------------------------
const files = TOTAL / PER_FILE;
const matrix = new Float32Array(TOTAL * dims);
const texts: string[] = new Array(TOTAL);
for (let file = 0; file < files; file++) {
  fileTexts(file, PER_FILE).forEach((text, i) => {
    texts[file * PER_FILE + i] = text;
    matrix.set(embedder.embedOne(text), (file * PER_FILE + i) * dims);
  });
}
const vectorOf = (i: number) => matrix.subarray(i * dims, (i + 1) * dims);
const queries = benchQueries(QUERIES);
const queryVectors = queries.map((query) => embedder.embedOne(query));
console.log(`Corpus: ${TOTAL.toLocaleString('en-US')} chunks, ${dims}-d, ${QUERIES} queries of 8 words, top ${TOP}.`);
let started = performance.now();
const exact = exactTopKOfMatrix(matrix, dims, queryVectors, TOP).map((ids) => new Set(ids));
console.log(`Exact reference (hnswlib BruteforceSearch): ${seconds(started)} s`);
globalThis.gc?.();

type Runner = (q: number) => Promise<number[]> | number[];
const systems: Array<{ name: string; beam: string; run: Runner }> = [];
const cleanups: Array<() => Promise<void> | void> = [];

// ---- Fathom: its vector index on SQLite, the store's two shard graphs ---------------------------------
if (SYSTEMS.has('fathom')) {
  const db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  const storeId = 'vs_scale';
  const fathom = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger });
  started = performance.now();
  for (let file = 0; file < files; file++) {
    await fathom.addFileChunks({
      storeId,
      fileId: `file-${file}`,
      filename: `doc-${file}.txt`,
      attributes: fileAttributes(file),
      chunks: Array.from({ length: PER_FILE }, (_, i) => ({
        index: i,
        text: texts[file * PER_FILE + i]!,
        tokens: 80,
        vector: vectorOf(file * PER_FILE + i).slice(),
      })),
    });
  }
  await fathom.flush();
  console.log(`Fathom ingestion (rows, keywords, two shard graphs, saved): ${rate(started)} chunks/s`);
  await fathom.close();
  const rowOfText = new Map(texts.map((text, i) => [text, i]));
  for (const beam of [undefined, ...FATHOM_BEAMS]) {
    const index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, hnsw: { efSearch: beam } });
    cleanups.push(() => index.close());
    systems.push({
      name: 'Fathom',
      beam: `${beam ?? `default ${searchBeam(TOTAL, TOP)}`}/shard`,
      run: async (q) =>
        (await index.search([storeId], { query: queries[q]!, mode: 'vector', maxNumResults: TOP })).map(
          (hit) => rowOfText.get(hit.content[0]!.text) ?? -1,
        ),
    });
  }
  cleanups.push(() => db.close());
}

// ---- raw hnswlib (the library of Fathom's graphs), one graph ----------------------------------------
if (SYSTEMS.has('hnswlib')) {
  const graphPath = join(dir, 'hnswlib.bin');
  started = performance.now();
  const index = new hnswlib.HierarchicalNSW('cosine', dims);
  index.initIndex({ maxElements: TOTAL, m: M, efConstruction: EF_CONSTRUCTION, randomSeed: 100 });
  for (let i = 0; i < TOTAL; i++) index.addPoint(Array.from(vectorOf(i)), i);
  index.writeIndexSync(graphPath);
  console.log(`hnswlib build (one thread), saved: ${rate(started)} chunks/s`);
  const searchWith = (name: string, graph: typeof index) => {
    for (const beam of BEAMS) {
      systems.push({
        name,
        beam: String(beam),
        run: (q) => {
          graph.setEf(Math.max(beam, TOP));
          return graph.searchKnn(Array.from(queryVectors[q]!), TOP).neighbors;
        },
      });
    }
  };
  searchWith('hnswlib', index);
  if (process.env.HNSWLIB_AVX) {
    const other = require(process.env.HNSWLIB_AVX) as typeof hnswlib;
    const copy = new other.HierarchicalNSW('cosine', dims);
    copy.readIndexSync(graphPath);
    searchWith('hnswlib-avx', copy);
  }
}

// ---- usearch, one graph, search on one thread --------------------------------------------------------
if (SYSTEMS.has('usearch')) {
  const usearchPath = join(dir, 'usearch.index');
  started = performance.now();
  const built = new USearchIndex({ dimensions: dims, metric: 'cos', connectivity: M, expansion_add: EF_CONSTRUCTION });
  const keys = new BigUint64Array(TOTAL);
  for (let i = 0; i < TOTAL; i++) keys[i] = BigInt(i);
  built.add(keys, matrix);
  built.save(usearchPath);
  console.log(`usearch build (its default threads), saved: ${rate(started)} chunks/s`);
  for (const beam of BEAMS) {
    const viewed = new USearchIndex({
      dimensions: dims,
      metric: 'cos',
      connectivity: M,
      expansion_add: EF_CONSTRUCTION,
      expansion_search: beam,
    });
    viewed.view(usearchPath);
    systems.push({
      name: 'usearch',
      beam: String(beam),
      run: (q) => Array.from(viewed.search(queryVectors[q]!, TOP, 1).keys, Number),
    });
  }
}

// ---- LanceDB: IVF_HNSW_SQ with one partition (one graph over 8-bit quantised vectors) -----------------
if (SYSTEMS.has('lancedb')) {
  const lancedb = await import('@lancedb/lancedb');
  const lance = await lancedb.connect(join(dir, 'lance'));
  started = performance.now();
  let table!: Awaited<ReturnType<typeof lance.createTable>>;
  for (let start = 0; start < TOTAL; start += 20_000) {
    const rows = Array.from({ length: Math.min(20_000, TOTAL - start) }, (_, offset) => ({
      id: start + offset,
      vector: Array.from(vectorOf(start + offset)),
    }));
    if (start === 0) table = await lance.createTable('chunks', rows, { mode: 'overwrite' });
    else await table.add(rows);
  }
  await table.createIndex('vector', {
    config: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1, m: M, efConstruction: EF_CONSTRUCTION }),
  });
  console.log(`LanceDB build (IVF_HNSW_SQ, 1 partition): ${rate(started)} chunks/s`);
  for (const beam of BEAMS) {
    systems.push({
      name: 'LanceDB',
      beam: String(beam),
      run: async (q) =>
        (await table.query().nearestTo(queryVectors[q]!).distanceType('cosine').ef(beam).limit(TOP).select(['id']).toArray()).map((row) =>
          Number(row.id),
        ),
    });
  }
  cleanups.push(() => lance.close());
}

// ---- recall, CPU and latency per beam ------------------------------------------------------------------
for (const system of systems) for (let q = 0; q < 5; q++) await system.run(q); // warm-up (Fathom loads its graphs)
const found = systems.map(() => [] as number[][]);
const walls = systems.map(() => [] as number[]);
const cpu = systems.map(() => [] as number[]);
console.log(`Searching: ${machineLoad()}`);
for (let q = 0; q < QUERIES; q++) {
  for (let k = 0; k < systems.length; k++) {
    const s = (q + k) % systems.length;
    const cpuBefore = cpuMs();
    const wallBefore = performance.now();
    found[s]![q] = await systems[s]!.run(q);
    walls[s]!.push(performance.now() - wallBefore);
    cpu[s]!.push(cpuMs() - cpuBefore);
  }
}
const recallOf = (lists: number[][]) =>
  lists.reduce((sum, ids, q) => sum + ids.filter((id) => exact[q]!.has(id)).length, 0) / (QUERIES * TOP);
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(`\nRecall@8 vs exact search at ${TOTAL.toLocaleString('en-US')} chunks (${QUERIES} queries, systems taking turns):`);
console.log('  system        beam (ef)   recall@8   CPU ms mean   CPU p50   wall p50   wall p99');
const rows = systems.map((system, s) => ({ ...system, recall: recallOf(found[s]!), cpuMean: mean(cpu[s]!) }));
rows.forEach((row, s) => {
  console.log(
    `  ${row.name.padEnd(12)} ${row.beam.padStart(11)}   ${row.recall.toFixed(3).padStart(8)}   ${row.cpuMean.toFixed(2).padStart(11)}   ${percentile(cpu[s]!, 50).toFixed(2).padStart(7)}   ${percentile(walls[s]!, 50).toFixed(2).padStart(8)}   ${percentile(walls[s]!, 99).toFixed(2).padStart(8)}`,
  );
});
console.log(`\nAt recall@8 >= ${RECALL_TARGET}: the smallest beam of the ladder, and what a search costs there`);
for (const name of new Set(rows.map((row) => row.name))) {
  const first = rows.find((row) => row.name === name && row.recall >= RECALL_TARGET);
  console.log(
    first
      ? `  ${name.padEnd(12)} beam ${first.beam.padStart(11)}: recall ${first.recall.toFixed(3)}, ${first.cpuMean.toFixed(2)} ms CPU per search`
      : `  ${name.padEnd(12)} not reached on the ladder (best ${Math.max(...rows.filter((row) => row.name === name).map((row) => row.recall)).toFixed(3)})`,
  );
}
console.log(`Finished: ${machineLoad()}`);
for (const cleanup of cleanups) await cleanup();
rmSync(dir, { recursive: true, force: true });
