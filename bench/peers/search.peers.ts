/**
 * Fathom's search side by side with the systems a user would pick instead, on the corpus of
 * `bench/search.bench.ts` (100k chunks of topical text with 384-d clustered vectors, top 8):
 * LanceDB (IVF_HNSW_SQ vector index + its BM25 full-text index, hybrid with its RRF reranker),
 * usearch (HNSW with the same M and efConstruction as Fathom), and a bare SQLite FTS5 BM25 query
 * (an OR of the same query words, no pruning). Queries alternate between systems one by one, in
 * REPEATS rounds; the printed ratios are Fathom / peer per round, as ranges over the rounds.
 *
 * Run: npm run bench:peers -- search   (CHUNKS=20000 REPEATS=1 for a quick run)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../packages/core/src/db';
import { silentLogger } from '../../packages/core/src/internal/logger';
import { SqliteDatabase } from '../../packages/core/src/storage';
import { VectorIndex, vectorSchema } from '../../packages/core/src/vector';
import { ftsString, parseKeywordQuery } from '../../packages/core/src/vector/keyword-query';
import { chunkText, queryText, rand, TopicAverageEmbedder, TOPICS } from '../search-corpus';
import { machineLoad, percentile, range } from './stats';

process.env.RUST_LOG ??= 'error';
process.env.LANCEDB_LOG ??= 'error'; // LanceDB logs deprecation warnings per query otherwise
const lancedb = await import('@lancedb/lancedb');
// usearch through `require`: its ES module build can loop forever finding its binary (scale.peers.ts).
const { Index: USearchIndex } = createRequire(import.meta.url)('usearch') as typeof import('usearch');

const TOTAL = Number(process.env.CHUNKS ?? 100_000);
const REPEATS = Number(process.env.REPEATS ?? 3);
const PER_FILE = 100;
const QUERIES = 200;
const TOP = 8;
const M = 16;
const EF_CONSTRUCTION = 100;
const RECALL_TARGET = 0.99;

const dir = mkdtempSync(join(tmpdir(), 'fathom-peers-'));
const embedder = new TopicAverageEmbedder();
const dims = embedder.dimensions;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const time = async (work: () => unknown) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

console.log(`Search peers — ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${machineLoad()} at start`);

// ---- corpus: the same texts, vectors and queries as bench/search.bench.ts ------------------------
const files: Array<{ topic: number; texts: string[] }> = [];
for (let file = 0; file < TOTAL / PER_FILE; file++) {
  const topic = file % TOPICS;
  files.push({ topic, texts: Array.from({ length: PER_FILE }, () => chunkText(rand() < 0.8 ? topic : Math.floor(rand() * TOPICS))) });
}
const texts = files.flatMap((file) => file.texts);
const matrix = new Float32Array(texts.length * dims);
texts.forEach((text, i) => matrix.set(embedder.embedOne(text), i * dims));
const vectorOf = (i: number) => matrix.subarray(i * dims, (i + 1) * dims);
const queries = Array.from({ length: QUERIES }, (_, i) => queryText((i * 7) % TOPICS));
const queryVectors = queries.map((query) => embedder.embedOne(query));
console.log(
  `Corpus: ${TOTAL.toLocaleString()} chunks, ${dims}-d vectors (topic-averaged word vectors), ${QUERIES} queries of 8 words, top ${TOP}.`,
);

/** Exact top 8 by cosine (vectors are normalised), for recall. */
function exactTop(query: Float32Array): number[] {
  const best: Array<{ i: number; s: number }> = [];
  for (let i = 0; i < texts.length; i++) {
    let s = 0;
    const base = i * dims;
    for (let d = 0; d < dims; d++) s += query[d]! * matrix[base + d]!;
    if (best.length < TOP || s > best[best.length - 1]!.s) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > TOP) best.pop();
    }
  }
  return best.map(({ i }) => i);
}
const recallQueries = queryVectors.slice(0, 100);
const exact = recallQueries.map(exactTop);
const recall = (found: number[][]) => {
  let hits = 0;
  found.forEach((ids, q) => {
    const wanted = new Set(exact[q]);
    hits += ids.filter((id) => wanted.has(id)).length;
  });
  return hits / (exact.length * TOP);
};
const rowOfText = new Map(texts.map((text, i) => [text, i]));

// ---- Fathom ---------------------------------------------------------------------------------------
const db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
const fathom = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, hnsw: { m: M, efConstruction: EF_CONSTRUCTION } });
const storeId = 'vs_peers';
const endToEndMs = await time(async () => {
  for (const [file, { topic, texts: chunks }] of files.entries()) {
    await fathom.addFileChunks({
      storeId,
      fileId: `file-${file}`,
      filename: `doc-${file}.txt`,
      attributes: { topic },
      chunks: chunks.map((text, i) => ({
        index: i,
        text,
        tokens: embedder.countTokens(text),
        vector: vectorOf(file * PER_FILE + i).slice(),
      })),
    });
  }
  await fathom.flush();
});
console.log(
  `Fathom ingestion end to end (addFileChunks: SQLite rows + FTS5 + HNSW in the worker, saved): ${(TOTAL / (endToEndMs / 1000)).toFixed(0)} chunks/s`,
);

// ---- bare FTS5 ------------------------------------------------------------------------------------
const bare = openDatabase({ location: join(dir, 'bare.db') });
bare.exec(`CREATE VIRTUAL TABLE bare USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')`);
const insertBare = bare.prepare('INSERT INTO bare (rowid, text) VALUES (?, ?)');
bare.transaction(() => texts.forEach((text, i) => insertBare.run(i, text)))();
const bareQuery = bare.prepare<[string, number], { id: number; text: string }>(
  'SELECT rowid AS id, text FROM bare WHERE bare MATCH ? ORDER BY bm25(bare) LIMIT ?',
);
/** The query's words without stop words (as Fathom's parser finds them), OR-ed, no inflections, no pruning. */
const bareMatch = (query: string) =>
  parseKeywordQuery(query)
    .map((group) => ftsString(group.kind === 'term' ? [group.words[0]!] : group.words))
    .join(' OR ');

// ---- LanceDB --------------------------------------------------------------------------------------
const lance = await lancedb.connect(join(dir, 'lance'));
const rrf = await lancedb.rerankers.RRFReranker.create();
let lanceTable!: Awaited<ReturnType<typeof lance.createTable>>;
const lanceBuildMs = await time(async () => {
  const batch = 10_000;
  for (let start = 0; start < texts.length; start += batch) {
    const rows = texts
      .slice(start, start + batch)
      .map((text, offset) => ({ id: start + offset, text, vector: Array.from(vectorOf(start + offset)) }));
    if (start === 0) lanceTable = await lance.createTable('chunks', rows, { mode: 'overwrite' });
    else await lanceTable.add(rows);
  }
  await lanceTable.createIndex('vector', {
    config: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1, m: M, efConstruction: EF_CONSTRUCTION }),
  });
  await lanceTable.createIndex('text', { config: lancedb.Index.fts() });
});
console.log(
  `LanceDB build (write + IVF_HNSW_SQ index, 1 partition, M=${M}, efConstruction=${EF_CONSTRUCTION} + FTS index): ${(TOTAL / (lanceBuildMs / 1000)).toFixed(0)} chunks/s`,
);

// ---- index build: Fathom's HNSW rebuild from SQLite vs usearch inserts, alternating --------------
const usearchPath = join(dir, 'usearch.index');
const buildRatios: number[] = [];
const buildRates: Array<{ fathom: number; usearch: number }> = [];
let usearchIndex!: InstanceType<typeof USearchIndex>;
for (let round = 0; round < REPEATS; round++) {
  // Both build the graph and save it to disk: Fathom reads the vectors from SQLite, usearch gets them in memory.
  const fathomMs = await time(() => fathom.rebuild(storeId));
  const usearchMs = await time(() => {
    usearchIndex = new USearchIndex({ dimensions: dims, metric: 'cos', connectivity: M, expansion_add: EF_CONSTRUCTION });
    const keys = new BigUint64Array(texts.length);
    for (let i = 0; i < keys.length; i++) keys[i] = BigInt(i);
    usearchIndex.add(keys, matrix);
    usearchIndex.save(usearchPath);
  });
  buildRates.push({ fathom: TOTAL / (fathomMs / 1000), usearch: TOTAL / (usearchMs / 1000) });
  buildRatios.push(usearchMs / fathomMs);
}

// usearch's search beam is fixed at construction: view the saved graph with rising beams until recall@8 >= 0.99.
let usearchEf = 0;
let usearchRecall = 0;
for (const ef of [64, 128, 256, 512, 1024, 2048]) {
  const viewed = new USearchIndex({
    dimensions: dims,
    metric: 'cos',
    connectivity: M,
    expansion_add: EF_CONSTRUCTION,
    expansion_search: ef,
  });
  viewed.view(usearchPath);
  usearchRecall = recall(recallQueries.map((vector) => Array.from(viewed.search(vector, TOP, 1).keys, Number)));
  usearchIndex = viewed;
  usearchEf = ef;
  if (usearchRecall >= RECALL_TARGET) break;
}
let lanceEf = 0;
let lanceRecall = 0;
const lanceVector = (vector: Float32Array, ef: number) =>
  lanceTable.query().nearestTo(vector).distanceType('cosine').ef(ef).limit(TOP).select(['id', 'text', '_distance']).toArray();
for (const ef of [64, 128, 256, 512, 1024, 2048]) {
  const found: number[][] = [];
  for (const vector of recallQueries) found.push((await lanceVector(vector, ef)).map((row) => Number(row.id)));
  lanceRecall = recall(found);
  lanceEf = ef;
  if (lanceRecall >= RECALL_TARGET) break;
}
const fathomFound: number[][] = [];
for (const query of queries.slice(0, recallQueries.length)) {
  const hits = await fathom.search([storeId], { query, mode: 'vector', maxNumResults: TOP });
  fathomFound.push(hits.map((hit) => rowOfText.get(hit.content[0]!.text) ?? -1));
}
const fathomRecall = recall(fathomFound);

// ---- queries, alternating one by one --------------------------------------------------------------
type System = { name: string; run: (i: number) => Promise<unknown> | unknown };
const systems: Record<'vector' | 'keyword' | 'hybrid', System[]> = {
  vector: [
    { name: 'Fathom', run: (i) => fathom.search([storeId], { query: queries[i]!, mode: 'vector', maxNumResults: TOP }) },
    { name: 'usearch', run: (i) => usearchIndex.search(queryVectors[i]!, TOP, 1) },
    { name: 'LanceDB', run: (i) => lanceVector(queryVectors[i]!, lanceEf) },
  ],
  keyword: [
    { name: 'Fathom', run: (i) => fathom.search([storeId], { query: queries[i]!, mode: 'keyword', maxNumResults: TOP }) },
    { name: 'FTS5', run: (i) => bareQuery.all(bareMatch(queries[i]!), TOP) },
    {
      name: 'LanceDB',
      run: (i) => lanceTable.query().fullTextSearch(queries[i]!).limit(TOP).select(['id', 'text', '_score']).toArray(),
    },
  ],
  hybrid: [
    { name: 'Fathom', run: (i) => fathom.search([storeId], { query: queries[i]!, mode: 'hybrid', maxNumResults: TOP }) },
    {
      name: 'LanceDB',
      run: (i) =>
        lanceTable
          .query()
          .nearestTo(queryVectors[i]!)
          .distanceType('cosine')
          .ef(lanceEf)
          .fullTextSearch(queries[i]!)
          .rerank(rrf)
          .limit(TOP)
          .select(['id', 'text'])
          .toArray(),
    },
  ],
};

const latency: Record<string, Array<{ p50: number; p99: number }>> = {};
for (let round = 0; round < REPEATS; round++) {
  for (const [mode, list] of Object.entries(systems)) {
    for (const system of list) for (let i = 0; i < 20; i++) await system.run(i); // warm-up
    const times = list.map(() => [] as number[]);
    for (let i = 0; i < QUERIES; i++) {
      // Rotate who goes first so neither side always runs right after the other.
      for (let k = 0; k < list.length; k++) {
        const s = (i + k) % list.length;
        const started = performance.now();
        await list[s]!.run(i);
        times[s]!.push(performance.now() - started);
      }
    }
    list.forEach((system, s) => {
      const key = `${mode}|${system.name}`;
      (latency[key] ??= []).push({ p50: percentile(times[s]!, 50), p99: percentile(times[s]!, 99) });
    });
  }
}

// ---- report ---------------------------------------------------------------------------------------
const ratio = (mode: string, peer: string, stat: 'p50' | 'p99') =>
  range(latency[`${mode}|Fathom`]!.map((own, round) => own[stat] / latency[`${mode}|${peer}`]![round]![stat]));
const abs = (mode: string, system: string, stat: 'p50' | 'p99') => range(latency[`${mode}|${system}`]!.map((entry) => entry[stat]));
console.log(
  `\nRecall@8 vs exact (100 queries): Fathom ${fathomRecall.toFixed(3)} (ef 800 default), usearch ${usearchRecall.toFixed(3)} (expansion_search ${usearchEf}), LanceDB ${lanceRecall.toFixed(3)} (ef ${lanceEf})`,
);
console.log(`\nLatency, ms (ranges over ${REPEATS} rounds of ${QUERIES} queries, systems alternating query by query):`);
for (const [mode, list] of Object.entries(systems)) {
  for (const system of list) {
    console.log(
      `  ${mode.padEnd(8)} ${system.name.padEnd(8)} p50 ${abs(mode, system.name, 'p50').padStart(11)}   p99 ${abs(mode, system.name, 'p99').padStart(13)}`,
    );
  }
}
console.log('\nRatios Fathom / peer (latency: below 1 = Fathom faster; build rate: below 1 = Fathom slower):');
console.log(
  `  vector p50    / usearch ${ratio('vector', 'usearch', 'p50')}   / LanceDB ${ratio('vector', 'LanceDB', 'p50')}   (target <= 1.2 x usearch)`,
);
console.log(
  `  keyword p50   / FTS5 ${ratio('keyword', 'FTS5', 'p50')}   / LanceDB ${ratio('keyword', 'LanceDB', 'p50')}   (targets <= 1.2 x FTS5, <= 1 x LanceDB)`,
);
console.log(`  keyword p99   / FTS5 ${ratio('keyword', 'FTS5', 'p99')}   / LanceDB ${ratio('keyword', 'LanceDB', 'p99')}`);
console.log(
  `  hybrid p50    / LanceDB ${ratio('hybrid', 'LanceDB', 'p50')}   p99 / LanceDB ${ratio('hybrid', 'LanceDB', 'p99')}   (target p50 <= 0.7)`,
);
console.log(
  `  index build   / usearch ${range(buildRatios)}   (HNSW M=${M}, efConstruction=${EF_CONSTRUCTION}, built and saved; Fathom ${range(
    buildRates.map((rate) => rate.fathom),
    0,
  )} chunks/s, usearch ${range(
    buildRates.map((rate) => rate.usearch),
    0,
  )} chunks/s with its default threads; target >= 0.8)`,
);
const indexOnly = buildRates.reduce((sum, rate) => sum + rate.fathom, 0) / buildRates.length;
console.log(
  `  Fathom ingestion end to end / index only: ${(TOTAL / (endToEndMs / 1000) / indexOnly).toFixed(2)}   (target >= 0.6); LanceDB build / Fathom end to end: ${(lanceBuildMs / endToEndMs).toFixed(2)}`,
);
console.log(
  `Finished: ${machineLoad()}; hybrid p50 of Fathom ${ms(
    percentile(
      latency['hybrid|Fathom']!.map((e) => e.p50),
      50,
    ),
  )}`,
);

await fathom.close();
db.close();
bare.close();
rmSync(dir, { recursive: true, force: true });
