/**
 * The plans PostgreSQL (PGlite) chooses for a store's vector and keyword search after a bulk load,
 * before and after `ANALYZE` (issue 24; decision 2026-11-26-postgres-analyze). Loads `N` chunks of the
 * scale corpus into one store (rows first, then the HNSW index: quicker than the server's insert path,
 * and the planner's choice depends on statistics, not on how the graph was built), then prints
 * `EXPLAIN (ANALYZE, BUFFERS)` of the approximate vector query, unfiltered and filtered to 1/7 of the
 * files, with sorting allowed (the plan before the fix) and with Fathom's settings (sorting off), and
 * of the keyword query of a bench query's words.
 *
 * With `EF_SWEEP=200,400,1000` it then measures recall@8 of the approximate query (Fathom's settings
 * for a store that is the whole index) at each `hnsw.ef_search`, 50 queries against exact search.
 *
 * Run: N=30000 nice -n 19 npx tsx bench/scale/pg-plans.ts   (30k chunks: ~2 min on a quiet machine)
 */
import { PostgresDatabase, type SqlClient } from '../../packages/core/src/storage';
import { startTestPostgres } from '../../packages/core/src/test/postgres';
import { vectorSchema } from '../../packages/core/src/vector';
import { PgChunkWrites } from '../../packages/core/src/vector/pg-chunk-writes';
import { keywordTokens } from '../../packages/core/src/vector/keyword-query';
import {
  applyApproximateSettings,
  approximateStatement,
  PgVectorSearch,
  vectorLiteral,
} from '../../packages/core/src/vector/pg-vector-search';
import { benchQueries, fileAttributes, fileTexts, TopicAverageEmbedder } from './corpus';

const N = Number(process.env.N ?? 30_000);
const STORE = 'vs_plans';
const embedder = new TopicAverageEmbedder();
const postgres = await startTestPostgres();
const db = await PostgresDatabase.open({ url: postgres.url, schemas: [vectorSchema], poolSize: 2 });
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

await db.run('INSERT INTO vector_index_meta (store_id, embedder_id, dimensions) VALUES (?, ?, 384)', [STORE, embedder.id]);
const writes = new PgChunkWrites(db);
const search = new PgVectorSearch({ db, log: console, m: 16, efConstruction: 64, efSearch: 200, exactSearchLimit: 4096 });
let started = performance.now();
/** Every row's vector, in insertion order (ids 1..N): the exact reference of the recall sweep. */
const vectors: Float32Array[] = [];
for (let file = 0; file < N / 100; file++) {
  const texts = fileTexts(file, 100);
  const embedded = texts.map((text) => embedder.embedOne(text));
  vectors.push(...embedded);
  await writes.write({
    storeId: STORE,
    fileId: `file-${file}`,
    filename: `file-${file}.txt`,
    attributes: fileAttributes(file),
    dimensions: 384,
    chunks: texts.map((text, index) => ({ index, text, tokens: 80, vector: embedded[index]! })),
  });
}
console.log(`${N.toLocaleString('en-US')} rows written in ${seconds(started)}`);
started = performance.now();
await db.run("SET maintenance_work_mem = '1GB'"); // build the graph in memory
await search.ensureIndex(384);
console.log(`HNSW index built in ${seconds(started)}`);

const query = benchQueries(1)[0]!;
const vector = vectorLiteral(embedder.embedOne(query));
const filtered = Array.from({ length: Math.ceil(N / 700) }, (_, i) => `file-${i * 7}`);
const keywordMatch = [...new Set(keywordTokens(query))].map((word) => `'${word}'`).join(' | ');
const brief = (rows: Array<{ 'QUERY PLAN': string }>) =>
  rows
    .map((row) => row['QUERY PLAN'])
    .filter((line) => !/Order By|Sort Key/.test(line))
    .map((line) => `    ${line.slice(0, 150)}`)
    .join('\n');

async function explain(tx: SqlClient, sql: string, params: unknown[]): Promise<string> {
  return brief(await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params));
}

async function plans(label: string): Promise<void> {
  const row = await db.get<{ analyzed: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'vector_chunks' AND attname = 'store_id') AS analyzed",
  );
  console.log(`\n=== ${label} (column statistics: ${row?.analyzed ? 'yes' : 'none'})`);
  for (const files of [undefined, filtered]) {
    const scope = { meta: { store_id: STORE, embedder_id: embedder.id, dimensions: 384, chunk_count: N }, files, chunks: N };
    const { sql, params } = approximateStatement(scope, vector, 40);
    for (const sort of ['on (before the fix)', 'off (Fathom)']) {
      const plan = await db.transaction(async (tx) => {
        await applyApproximateSettings(tx, 200, 20_000);
        if (sort.startsWith('on')) await tx.get("SELECT set_config('enable_sort', 'on', true) AS sort");
        return explain(tx, sql, params);
      });
      console.log(`--- vector, ${files ? `filtered to ${files.length} files` : 'whole store'}, sorting ${sort}:\n${plan}`);
    }
  }
  const keyword = `SELECT id FROM vector_chunks WHERE keywords @@ CAST(? AS tsquery) AND store_id = ANY(?)
    ORDER BY ts_rank(keywords, CAST(? AS tsquery), 1) DESC, id LIMIT 40`;
  console.log(`--- keyword (${keywordMatch}):\n${await explain(db, keyword, [keywordMatch, [STORE], keywordMatch])}`);
}

await plans('after the bulk load');
started = performance.now();
await db.run('ANALYZE vector_chunks');
console.log(`\nANALYZE vector_chunks took ${seconds(started)}`);
await plans('after ANALYZE');
if (process.env.EF_SWEEP) await sweep(process.env.EF_SWEEP.split(',').map(Number));
await db.close();
await postgres.close();

/** Recall@8 and latency of the approximate query at each beam, 50 queries against exact search. */
async function sweep(beams: number[]): Promise<void> {
  const ids = await db.get<{ low: number; high: number }>('SELECT MIN(id) AS low, MAX(id) AS high FROM vector_chunks');
  if (Number(ids?.low) !== 1 || Number(ids?.high) !== N) throw new Error('the sweep needs ids 1..N in insertion order');
  const queries = benchQueries(50).map((text) => embedder.embedOne(text));
  const exact = queries.map((query) => {
    const scored = vectors.map((vector, i) => {
      let dot = 0;
      for (let d = 0; d < vector.length; d++) dot += vector[d]! * query[d]!;
      return { id: i + 1, dot };
    });
    return new Set(
      scored
        .sort((a, b) => b.dot - a.dot)
        .slice(0, 8)
        .map((entry) => entry.id),
    );
  });
  const scope = { meta: { store_id: STORE, embedder_id: embedder.id, dimensions: 384, chunk_count: N }, chunks: N };
  console.log(`\n=== recall@8 of the approximate query (whole store, ${N.toLocaleString('en-US')} chunks, 50 queries)`);
  for (const ef of beams) {
    let found = 0;
    const times: number[] = [];
    for (const [q, query] of queries.entries()) {
      const { sql, params } = approximateStatement(scope, vectorLiteral(query), 40);
      const at = performance.now();
      const rows = await db.transaction(async (tx) => {
        await applyApproximateSettings(tx, ef, Math.max(20_000, 4 * ef));
        return tx.all<{ id: number; distance: number }>(sql, params);
      });
      times.push(performance.now() - at);
      const top = rows.sort((a, b) => Number(a.distance) - Number(b.distance)).slice(0, 8);
      found += top.filter((row) => exact[q]!.has(Number(row.id))).length;
    }
    times.sort((a, b) => a - b);
    console.log(`  ef ${ef}: recall@8 ${(found / (8 * queries.length)).toFixed(3)}, p50 ${times[25]!.toFixed(1)} ms`);
  }
}
