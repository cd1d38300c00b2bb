/**
 * Search benchmark: a store of 100,000 chunks of topical synthetic text (Zipf-distributed pseudo-words,
 * 300 topics, English function words), embedded with the hash embedder (real vectors of real-looking
 * text, clustered by topic — not uniform random), ingested through VectorIndex.addFileChunks.
 * Prints p50/p99 latency of vector, keyword and hybrid search for ~8-word natural-language queries,
 * HNSW recall@8 against exact search, build throughput, and event-loop delay during the build.
 *
 * Run: npm run bench -- search   (CHUNKS=20000 for a quicker run)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
// Imported by folder (not through '@fathom/core') so the bench loads only what search needs.
import { openDatabase } from '../packages/core/src/db';
import { HashEmbedder } from '../packages/core/src/embeddings';
import { silentLogger } from '../packages/core/src/internal/logger';
import { VectorIndex, vectorSchema } from '../packages/core/src/vector';
import { chunkText, queryText, rand, TopicAverageEmbedder, TOPICS } from './search-corpus';

const TOTAL = Number(process.env.CHUNKS ?? 100_000);
const PER_FILE = 100;
const QUERIES = 200;
/** `topic` (default): 384-d averaged topic word vectors, clustered like sentence-model embeddings; `hash`: the hash embedder. */
const EMBEDDER = process.env.EMBEDDER ?? 'topic';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'fathom-search-bench-'));
  const db = openDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  const embedder = EMBEDDER === 'hash' ? new HashEmbedder() : new TopicAverageEmbedder();
  const efSearch = Number(process.env.EF ?? 0) || undefined; // default: VectorIndex's (800)
  const index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, hnsw: { efSearch } });
  const storeId = 'vs_bench';
  console.log(
    `Corpus: ${TOTAL.toLocaleString()} chunks (${TOTAL / PER_FILE} files x ${PER_FILE}), ${TOPICS} topics of Zipf-distributed pseudo-words,`,
  );
  console.log(
    EMBEDDER === 'hash'
      ? `embedded with ${embedder.id} (real vectors of the generated text; not uniform random).`
      : `vectors from ${embedder.id}: each chunk's vector is the mean of its words' vectors (topic centroid + noise), computed\n` +
          'directly instead of running a model over 100k texts; clustered by topic as sentence-model embeddings are.',
  );

  const delay = monitorEventLoopDelay({ resolution: 10 });
  let embedMs = 0;
  let textChars = 0;
  const started = performance.now();
  delay.enable();
  for (let file = 0; file < TOTAL / PER_FILE; file++) {
    const topic = file % TOPICS;
    const texts = Array.from({ length: PER_FILE }, () => chunkText(rand() < 0.8 ? topic : Math.floor(rand() * TOPICS)));
    textChars += texts.reduce((sum, text) => sum + text.length, 0);
    const t0 = performance.now();
    const { embeddings } = await embedder.embed({ values: texts });
    embedMs += performance.now() - t0;
    await index.addFileChunks({
      storeId,
      fileId: `file-${file}`,
      filename: `doc-${file}.txt`,
      attributes: { topic, part: file % 7 },
      chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
    });
    await new Promise((resolve) => setImmediate(resolve)); // yield like an ingestion queue between files
    if (file % 100 === 99) process.stdout.write(`\r  ingested ${((file + 1) * PER_FILE).toLocaleString()} chunks`);
  }
  delay.disable();
  const waiting = monitorEventLoopDelay({ resolution: 5 });
  waiting.enable();
  const queuedAt = performance.now();
  await index.flush(); // waits for the worker: every HNSW insert applied and saved
  waiting.disable();
  const drainSeconds = (performance.now() - queuedAt) / 1000;
  const buildSeconds = (performance.now() - started) / 1000;
  process.stdout.write('\r');
  console.log(
    `Build: ${buildSeconds.toFixed(1)} s total = ${(TOTAL / buildSeconds).toFixed(0)} chunks/s through embed + SQLite/FTS5 + HNSW (worker);`,
  );
  console.log(
    `  embedding alone (${embedder.id}): ${(TOTAL / (embedMs / 1000)).toFixed(0)} chunks/s (${(textChars / 2 ** 20 / (embedMs / 1000)).toFixed(1)} MB/s of text).`,
  );
  console.log(
    `  event-loop delay while ingesting (embedding + SQLite on the main thread, HNSW in the worker): p50 ${ms(delay.percentile(50) / 1e6)}, p99 ${ms(delay.percentile(99) / 1e6)}`,
  );
  console.log(
    `  event-loop delay while the worker drained the last ${drainSeconds.toFixed(1)} s of HNSW inserts: p99 ${ms(waiting.percentile(99) / 1e6)}, max ${ms(waiting.max / 1e6)}`,
  );

  const queries = Array.from({ length: QUERIES }, (_, i) => queryText((i * 7) % TOPICS));
  console.log(`Queries: ${QUERIES} natural-language queries of 8 words, e.g. "${queries[0]}"`);
  for (const query of queries.slice(0, 20)) await index.search([storeId], { query, mode: 'hybrid' }); // warm-up
  const rows: string[] = [];
  for (const mode of ['vector', 'keyword', 'hybrid'] as const) {
    const times: number[] = [];
    for (const query of queries) {
      const t0 = performance.now();
      await index.search([storeId], { query, mode, maxNumResults: 10 });
      times.push(performance.now() - t0);
    }
    rows.push(`  ${mode.padEnd(8)} p50 ${ms(percentile(times, 50)).padStart(9)}   p99 ${ms(percentile(times, 99)).padStart(9)}`);
  }
  const repeated: number[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    await index.search([storeId], { query, mode: 'hybrid', maxNumResults: 10 });
    repeated.push(performance.now() - t0);
  }
  rows.push(
    `  hybrid, same queries again (term statistics cached) p50 ${ms(percentile(repeated, 50))}   p99 ${ms(percentile(repeated, 99))}`,
  );
  const filtered: number[] = [];
  for (const [i, query] of queries.slice(0, 100).entries()) {
    const t0 = performance.now();
    await index.search([storeId], { query, filters: { type: 'eq', key: 'part', value: i % 7 } });
    filtered.push(performance.now() - t0);
  }
  rows.push(`  hybrid+filter (1/7 of files) p50 ${ms(percentile(filtered, 50))}   p99 ${ms(percentile(filtered, 99))}`);
  console.log(`Search latency at ${TOTAL.toLocaleString()} chunks (max_num_results 10; targets hybrid p50 <= 5 ms, p99 <= 25 ms):`);
  console.log(rows.join('\n'));

  // HNSW recall@8 of the vector side against exact (brute-force) search over every stored vector.
  const rowsAll = db.prepare('SELECT id, file_id, text, vector FROM vector_chunks WHERE store_id = ?').all(storeId) as Array<{
    file_id: string;
    text: string;
    vector: Buffer;
  }>;
  const dims = embedder.dimensions;
  const matrix = new Float32Array(rowsAll.length * dims);
  rowsAll.forEach((row, i) => matrix.set(new Float32Array(new Uint8Array(row.vector).buffer), i * dims));
  let found = 0;
  let wanted = 0;
  for (const query of queries.slice(0, 100)) {
    const q = embedder.embedOne(query);
    const best: Array<{ i: number; s: number }> = [];
    for (let i = 0; i < rowsAll.length; i++) {
      let s = 0;
      const base = i * dims;
      for (let d = 0; d < dims; d++) s += q[d]! * matrix[base + d]!;
      if (best.length < 8 || s > best[best.length - 1]!.s) {
        best.push({ i, s });
        best.sort((a, b) => b.s - a.s);
        if (best.length > 8) best.pop();
      }
    }
    const exact = new Set(best.map(({ i }) => `${rowsAll[i]!.file_id}|${rowsAll[i]!.text}`));
    const hits = await index.search([storeId], { query, mode: 'vector', maxNumResults: 8 });
    wanted += exact.size;
    found += hits.filter((hit) => exact.has(`${hit.file_id}|${hit.content[0]!.text}`)).length;
  }
  console.log(
    `HNSW recall@8 vs exact search (100 queries, M=16, efConstruction=100, ef=${efSearch ?? 'default'}, ${dims}-d): ${(found / wanted).toFixed(3)} (target >= 0.95)`,
  );

  await index.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
