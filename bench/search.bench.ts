/**
 * Search benchmark: a store of 100,000 chunks of topical synthetic text (Zipf-distributed pseudo-words,
 * 300 topics, English function words), embedded with the hash embedder (real vectors of real-looking
 * text, clustered by topic — not uniform random), ingested through VectorIndex.addFileChunks.
 * Prints p50/p99 latency of vector, keyword and hybrid search for ~8-word natural-language queries,
 * HNSW recall@8 against exact search, build throughput, and event-loop delay during the build.
 *
 * It runs once per backend, each in its own process (same seeded corpus): SQLite (`VectorIndex`: HNSW
 * worker + FTS5) and PostgreSQL (`PgVectorIndex`: pgvector HNSW + full text). PostgreSQL is PGlite
 * here (PostgreSQL compiled to WebAssembly, one session) unless FATHOM_BENCH_DATABASE_URL names a real
 * server; a native PostgreSQL is much faster. The PostgreSQL run also measures how per-store
 * filtering keeps recall when a store is a small part of the table (see pg-filtering below).
 *
 * Run: npm run bench -- search   (CHUNKS=20000 for a quicker run; CHUNKS_PG for the PostgreSQL corpus,
 * default 20,000; BACKEND=sqlite or BACKEND=postgres for one of them)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
// Imported by folder (not through '@fathom/core') so the bench loads only what search needs.
import { HashEmbedder } from '../packages/core/src/embeddings';
import { silentLogger } from '../packages/core/src/internal/logger';
import { PostgresDatabase, SqliteDatabase, type SqlDatabase } from '../packages/core/src/storage';
import { startTestPostgres, type TestPostgres } from '../packages/core/src/test/postgres';
import { PgVectorIndex, VectorIndex, type VectorIndexContract, vectorSchema } from '../packages/core/src/vector';
import { studyPgFiltering } from './pg-filtering';
import { chunkText, queryText, rand, TopicAverageEmbedder, TOPICS } from './search-corpus';

const BACKEND = process.env.BACKEND ?? '';
const TOTAL = Number(BACKEND === 'postgres' ? (process.env.CHUNKS_PG ?? 20_000) : (process.env.CHUNKS ?? 100_000));
const PER_FILE = 100;
const QUERIES = 200;
/** `topic` (default): 384-d averaged topic word vectors, clustered like sentence-model embeddings; `hash`: the hash embedder. */
const EMBEDDER = process.env.EMBEDDER ?? 'topic';

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** The index under test: SQLite's or PostgreSQL's, with the rows of a store for the exact-search reference. */
async function openBackend(embedder: TopicAverageEmbedder | HashEmbedder, efSearch: number | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'fathom-search-bench-'));
  if (BACKEND === 'postgres') {
    let server: TestPostgres | undefined;
    const url = process.env.FATHOM_BENCH_DATABASE_URL ?? (server = await startTestPostgres()).url;
    const db = await PostgresDatabase.open({ url, schemas: [vectorSchema], poolSize: 4 });
    const index = new PgVectorIndex({ db, embedder, log: silentLogger, hnsw: { efSearch } });
    return {
      db,
      index: index as VectorIndexContract,
      label: server
        ? 'PostgreSQL (PGlite: WebAssembly, one session) + pgvector HNSW + full text'
        : 'PostgreSQL + pgvector HNSW + full text',
      flush: async () => void (await db.run('ANALYZE vector_chunks')), // autovacuum does this on a server
      rows: async (storeId: string) =>
        (
          await db.all<{ file_id: string; text: string; embedding: string }>(
            'SELECT file_id, text, CAST(embedding AS text) AS embedding FROM vector_chunks WHERE store_id = ?',
            [storeId],
          )
        ).map((row) => ({ file_id: row.file_id, text: row.text, vector: new Float32Array(JSON.parse(row.embedding) as number[]) })),
      close: async () => {
        await index.close();
        await db.close();
        await server?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
  const index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger, hnsw: { efSearch } });
  return {
    db: db as SqlDatabase,
    index: index as VectorIndexContract,
    label: 'SQLite/FTS5 + HNSW (worker)',
    flush: () => index.flush(), // waits for the worker: every HNSW insert applied and saved
    rows: async (storeId: string) =>
      (
        db.raw.prepare('SELECT file_id, text, vector FROM vector_chunks WHERE store_id = ?').all(storeId) as Array<{
          file_id: string;
          text: string;
          vector: Buffer;
        }>
      ).map((row) => ({ file_id: row.file_id, text: row.text, vector: new Float32Array(new Uint8Array(row.vector).buffer) })),
    close: async () => {
      await index.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function main() {
  if (!BACKEND) {
    // One process per backend: the same seeded corpus, and neither run disturbs the other.
    for (const backend of ['sqlite', 'postgres']) {
      console.log(`\n--- ${backend} ---`);
      const result = spawnSync(process.execPath, process.execArgv.concat(fileURLToPath(import.meta.url)), {
        stdio: 'inherit',
        env: { ...process.env, BACKEND: backend },
      });
      if (result.status !== 0) process.exitCode = 1;
    }
    return;
  }
  const embedder = EMBEDDER === 'hash' ? new HashEmbedder() : new TopicAverageEmbedder();
  const efSearch = Number(process.env.EF ?? 0) || undefined; // default: the index's (SQLite 800, PostgreSQL 200)
  const backend = await openBackend(embedder, efSearch);
  const { index } = backend;
  console.log(`Backend: ${backend.label}`);
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
  await backend.flush();
  waiting.disable();
  const drainSeconds = (performance.now() - queuedAt) / 1000;
  const buildSeconds = (performance.now() - started) / 1000;
  process.stdout.write('\r');
  console.log(
    `Build: ${buildSeconds.toFixed(1)} s total = ${(TOTAL / buildSeconds).toFixed(0)} chunks/s through embed + ${backend.label};`,
  );
  console.log(
    `  embedding alone (${embedder.id}): ${(TOTAL / (embedMs / 1000)).toFixed(0)} chunks/s (${(textChars / 2 ** 20 / (embedMs / 1000)).toFixed(1)} MB/s of text).`,
  );
  console.log(
    `  event-loop delay while ingesting (embedding + index writes on the main thread): p50 ${ms(delay.percentile(50) / 1e6)}, p99 ${ms(delay.percentile(99) / 1e6)}`,
  );
  console.log(
    `  event-loop delay while the last ${drainSeconds.toFixed(1)} s of index work finished (HNSW worker drain; ANALYZE on PostgreSQL): p99 ${ms(waiting.percentile(99) / 1e6)}, max ${ms(waiting.max / 1e6)}`,
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
  const rowsAll = await backend.rows(storeId);
  const dims = embedder.dimensions;
  const matrix = new Float32Array(rowsAll.length * dims);
  rowsAll.forEach((row, i) => matrix.set(row.vector, i * dims));
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
    `HNSW recall@8 vs exact search (100 queries, M=16, efConstruction=${BACKEND === 'postgres' ? 64 : 100}, ef=${efSearch ?? 'default'}, ${dims}-d): ${(found / wanted).toFixed(3)} (target >= 0.95)`,
  );

  if (BACKEND === 'postgres' && embedder instanceof TopicAverageEmbedder) {
    await studyPgFiltering(backend.db as PostgresDatabase, index as PgVectorIndex, embedder, TOTAL);
  }
  await backend.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
