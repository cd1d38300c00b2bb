/**
 * The PostgreSQL part of the search benchmark: how per-store filtering keeps recall when a store is a
 * small part of the table. pgvector's HNSW index covers every chunk of a vector size, so a search of
 * one store walks a graph built over all stores and drops the other stores' rows after the fact.
 * Stores of 1%, 5% and 20% of the bench store's size are added next to it; for each, 50 queries
 * measure recall@8 of the vector side against exact search, and latency, under:
 *  - plain HNSW with the store filter (no iterative scan; ef_search 200),
 *  - HNSW with iterative scans at pgvector's default limit (max_scan_tuples 20,000),
 *  - HNSW with iterative scans as PgVectorIndex sets them for a store above its exact-search
 *    threshold (ef_search 200 x sqrt(table/store rows), at most 1,000; max_scan_tuples 4 x ef x that ratio),
 *  - what PgVectorIndex does (exact below its threshold, else iterative scans with a limit set from
 *    the store's share of the index).
 * The first three force the HNSW plan (enable_sort off); PgVectorIndex lets the planner choose.
 */
import type { PgVectorIndex } from '../packages/core/src/vector';
import type { PostgresDatabase } from '../packages/core/src/storage';
import { vectorLiteral } from '../packages/core/src/vector/pg-vector-search';
import { chunkText, queryText, rand, type TopicAverageEmbedder, TOPICS } from './search-corpus';

const QUERIES = 50;
const K = 8;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

export async function studyPgFiltering(db: PostgresDatabase, index: PgVectorIndex, embedder: TopicAverageEmbedder, total: number) {
  const dims = embedder.dimensions;
  const shares = [0.01, 0.05, 0.2];
  const stores: Array<{ id: string; chunks: number }> = [];
  for (const share of shares) {
    const id = `vs_share_${share}`;
    const chunks = Math.round(total * share);
    for (let file = 0; file * 100 < chunks; file++) {
      const count = Math.min(100, chunks - file * 100);
      const texts = Array.from({ length: count }, () => chunkText(Math.floor(rand() * TOPICS)));
      const { embeddings } = await embedder.embed({ values: texts });
      await index.addFileChunks({
        storeId: id,
        fileId: `file-${file}`,
        filename: `doc-${file}.txt`,
        attributes: null,
        chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
      });
    }
    stores.push({ id, chunks });
  }
  await db.run('ANALYZE vector_chunks');
  const tableRows = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM vector_chunks'))!.n);
  console.log(
    `\npg-filtering: recall@${K} of the vector side for a store that is a small part of the table (${tableRows.toLocaleString()} rows in one HNSW index, ${QUERIES} queries each):`,
  );
  const sizes = new Map(stores.map((store) => [store.id, store.chunks]));
  const key = (row: { file_id: string; text: string }) => `${row.file_id}|${row.text}`;
  const hnsw = (store: string, vector: string, settings: string[]) =>
    db.transaction(async (tx) => {
      for (const setting of settings) await tx.run(setting);
      return tx.all<{ file_id: string; text: string }>(
        `SELECT file_id, text FROM vector_chunks WHERE dimensions = ${dims} AND store_id = ?
         ORDER BY (embedding::vector(${dims})) <=> CAST(? AS vector(${dims})) LIMIT ${K}`,
        [store, vector],
      );
    });
  const variants: Record<string, (store: string, query: string, vector: string) => Promise<Array<{ file_id: string; text: string }>>> = {
    'HNSW + filter, no iterative scan': (store, _query, vector) =>
      hnsw(store, vector, ['SET LOCAL enable_sort = off', 'SET LOCAL hnsw.ef_search = 200', 'SET LOCAL hnsw.iterative_scan = off']),
    'HNSW + iterative scan (max_scan_tuples 20,000)': (store, _query, vector) =>
      hnsw(store, vector, [
        'SET LOCAL enable_sort = off',
        'SET LOCAL hnsw.ef_search = 200',
        "SET LOCAL hnsw.iterative_scan = 'relaxed_order'",
        'SET LOCAL hnsw.max_scan_tuples = 20000',
      ]),
    'HNSW + iterative scan as PgVectorIndex sets it': (store, _query, vector) => {
      const spread = Math.ceil(tableRows / (sizes.get(store) ?? 1));
      const ef = Math.min(1000, Math.ceil(200 * Math.sqrt(spread)));
      return hnsw(store, vector, [
        'SET LOCAL enable_sort = off',
        `SET LOCAL hnsw.ef_search = ${ef}`,
        "SET LOCAL hnsw.iterative_scan = 'relaxed_order'",
        `SET LOCAL hnsw.max_scan_tuples = ${Math.min(1_000_000, Math.max(20_000, 4 * ef * spread))}`,
      ]);
    },
    PgVectorIndex: async (store, query) =>
      (await index.search([store], { query, mode: 'vector', maxNumResults: K })).map((hit) => ({
        file_id: hit.file_id,
        text: hit.content[0]!.text,
      })),
  };
  for (const store of stores) {
    const results: Record<string, { found: number; wanted: number; times: number[] }> = {};
    for (let q = 0; q < QUERIES; q++) {
      const query = queryText((q * 11) % TOPICS);
      const vector = vectorLiteral(embedder.embedOne(query));
      const exact = await db.all<{ file_id: string; text: string }>(
        `SELECT file_id, text FROM vector_chunks WHERE store_id = ? ORDER BY embedding <=> CAST(? AS vector) LIMIT ${K}`,
        [store.id, vector],
      );
      const wanted = new Set(exact.map(key));
      for (const [name, run] of Object.entries(variants)) {
        const started = performance.now();
        const rows = await run(store.id, query, vector);
        const took = performance.now() - started;
        const entry = (results[name] ??= { found: 0, wanted: 0, times: [] });
        entry.wanted += wanted.size;
        entry.found += rows.filter((row) => wanted.has(key(row))).length;
        entry.times.push(took);
      }
    }
    console.log(`  store of ${store.chunks.toLocaleString()} chunks (${((100 * store.chunks) / tableRows).toFixed(1)}% of the index):`);
    for (const [name, entry] of Object.entries(results)) {
      console.log(
        `    ${name.padEnd(48)} recall@${K} ${(entry.found / entry.wanted).toFixed(3)}   p50 ${percentile(entry.times, 50).toFixed(1)} ms   p99 ${percentile(entry.times, 99).toFixed(1)} ms`,
      );
    }
  }
}
