/**
 * Recall against the search beam at a million chunks: Fathom, usearch and LanceDB on the same vectors
 * (the scale benchmark's corpus: topical text, 384-d vectors clustered in 300 tight topics), so the fall
 * of recall with store size can be split into what the data does to any HNSW graph and what is Fathom's.
 * For each system: recall@8 of the vector side against exact search over a ladder of beams, and the
 * latency of one search at each (p50, systems taking turns query by query). Fathom is measured at its
 * defaults (its beam follows the store size) and at the same fixed beams.
 *
 * Run: npm run bench:peers -- scale   (CHUNKS=1000000 by default; CHUNKS=300000 for a smaller run)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../packages/core/src/db';
import { silentLogger } from '../../packages/core/src/internal/logger';
import { VectorIndex, vectorSchema } from '../../packages/core/src/vector';
import { benchQueries, fileAttributes, fileTexts, TopicAverageEmbedder } from '../scale/corpus';
import { machineLoad, percentile } from './stats';

process.env.RUST_LOG ??= 'error';
process.env.LANCEDB_LOG ??= 'error';
const lancedb = await import('@lancedb/lancedb');
const { Index: USearchIndex } = await import('usearch');

const TOTAL = Number(process.env.CHUNKS ?? 1_000_000);
const PER_FILE = 100;
const QUERIES = 100;
const TOP = 8;
const M = 16;
const EF_CONSTRUCTION = 100;
const BEAMS = (process.env.BEAMS ?? '800,1600,3200,6400').split(',').map(Number);

const dir = mkdtempSync(join(tmpdir(), 'fathom-peers-scale-'));
const embedder = new TopicAverageEmbedder();
const dims = embedder.dimensions;
const time = async (work: () => unknown) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
console.log(`Recall at scale — ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${machineLoad()} at start`);

// ---- corpus ----------------------------------------------------------------------------------------
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

const exact = queryVectors.map((query) => {
  const best: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < TOTAL; i++) {
    let s = 0;
    const base = i * dims;
    for (let d = 0; d < dims; d++) s += query[d]! * matrix[base + d]!;
    if (best.length < TOP || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > TOP) best.pop();
    }
  }
  return new Set(best.map(({ i }) => i));
});
const recallOf = (found: number[][]) =>
  found.reduce((sum, ids, q) => sum + ids.filter((id) => exact[q]!.has(id)).length, 0) / (QUERIES * TOP);
const rowOfText = new Map(texts.map((text, i) => [text, i]));

// ---- builds ------------------------------------------------------------------------------------------
const db = openDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
const fathoms = new Map<string, VectorIndex>();
const fathom = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger });
const storeId = 'vs_scale';
const fathomMs = await time(async () => {
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
});
console.log(`Fathom ingestion (rows, keywords, graphs, saved): ${(TOTAL / (fathomMs / 1000)).toFixed(0)} chunks/s`);
await fathom.close();
const fathomAt = (efSearch?: number) => {
  const key = String(efSearch ?? 'default');
  let index = fathoms.get(key);
  if (!index) fathoms.set(key, (index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, hnsw: { efSearch } })));
  return index;
};

const usearchPath = join(dir, 'usearch.index');
const usearchMs = await time(() => {
  const index = new USearchIndex({ dimensions: dims, metric: 'cos', connectivity: M, expansion_add: EF_CONSTRUCTION });
  const keys = new BigUint64Array(TOTAL);
  for (let i = 0; i < TOTAL; i++) keys[i] = BigInt(i);
  index.add(keys, matrix);
  index.save(usearchPath);
});
console.log(
  `usearch build (M=${M}, efConstruction=${EF_CONSTRUCTION}, its default threads), saved: ${(TOTAL / (usearchMs / 1000)).toFixed(0)} chunks/s`,
);

const lance = await lancedb.connect(join(dir, 'lance'));
let lanceTable!: Awaited<ReturnType<typeof lance.createTable>>;
const lanceMs = await time(async () => {
  for (let start = 0; start < TOTAL; start += 20_000) {
    const rows = Array.from({ length: Math.min(20_000, TOTAL - start) }, (_, offset) => ({
      id: start + offset,
      vector: Array.from(vectorOf(start + offset)),
    }));
    if (start === 0) lanceTable = await lance.createTable('chunks', rows, { mode: 'overwrite' });
    else await lanceTable.add(rows);
  }
  await lanceTable.createIndex('vector', {
    config: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1, m: M, efConstruction: EF_CONSTRUCTION }),
  });
});
console.log(
  `LanceDB build (IVF_HNSW_SQ, 1 partition, M=${M}, efConstruction=${EF_CONSTRUCTION}): ${(TOTAL / (lanceMs / 1000)).toFixed(0)} chunks/s`,
);

// ---- recall and latency per beam -------------------------------------------------------------------
type Runner = (q: number) => Promise<number[]>;
const systems: Array<{ name: string; beam: string; run: Runner }> = [];
const fathomRun =
  (index: VectorIndex): Runner =>
  async (q) =>
    (await index.search([storeId], { query: queries[q]!, mode: 'vector', maxNumResults: TOP })).map(
      (hit) => rowOfText.get(hit.content[0]!.text) ?? -1,
    );
systems.push({ name: 'Fathom', beam: 'default', run: fathomRun(fathomAt()) });
for (const beam of BEAMS) {
  systems.push({ name: 'Fathom', beam: String(beam), run: fathomRun(fathomAt(beam)) });
  const viewed = new USearchIndex({
    dimensions: dims,
    metric: 'cos',
    connectivity: M,
    expansion_add: EF_CONSTRUCTION,
    expansion_search: beam,
  });
  viewed.view(usearchPath);
  systems.push({ name: 'usearch', beam: String(beam), run: async (q) => Array.from(viewed.search(queryVectors[q]!, TOP, 1).keys, Number) });
  systems.push({
    name: 'LanceDB',
    beam: String(beam),
    run: async (q) =>
      (await lanceTable.query().nearestTo(queryVectors[q]!).distanceType('cosine').ef(beam).limit(TOP).select(['id']).toArray()).map(
        (row) => Number(row.id),
      ),
  });
}
for (const system of systems) for (let q = 0; q < 5; q++) await system.run(q); // warm-up (Fathom loads its graphs)
const found = systems.map(() => [] as number[][]);
const times = systems.map(() => [] as number[]);
for (let q = 0; q < QUERIES; q++) {
  for (let k = 0; k < systems.length; k++) {
    const s = (q + k) % systems.length;
    const started = performance.now();
    found[s]![q] = await systems[s]!.run(q);
    times[s]!.push(performance.now() - started);
  }
}
console.log(
  `\nRecall@8 vs exact search and search latency at ${TOTAL.toLocaleString('en-US')} chunks (${QUERIES} queries, systems taking turns):`,
);
console.log('  system   beam (ef)   recall@8   p50 ms   p99 ms');
systems.forEach((system, s) => {
  console.log(
    `  ${system.name.padEnd(8)} ${system.beam.padStart(9)}   ${recallOf(found[s]!).toFixed(3).padStart(8)}   ${percentile(times[s]!, 50).toFixed(2).padStart(6)}   ${percentile(times[s]!, 99).toFixed(2).padStart(6)}`,
  );
});
console.log(`Finished: ${machineLoad()}`);
for (const index of fathoms.values()) await index.close();
db.close();
rmSync(dir, { recursive: true, force: true });
