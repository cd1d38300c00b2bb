/**
 * The plans PostgreSQL runs for a store's vector search after a bulk load (issue 24): without planner
 * statistics (PGlite has no autovacuum; a native server analyses only after a threshold and a nap)
 * PostgreSQL read a large store's every row through the B-tree on `store_id` and sorted them by
 * distance, an exact scan (1.05 s per search at 100k chunks), instead of walking the HNSW index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../internal/logger';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { chunkText, random, TopicAverageEmbedder } from '../test/search-corpus';
import { PgVectorIndex } from './pg-vector-index';
import { applyApproximateSettings, approximateBeam, approximateStatement, vectorLiteral } from './pg-vector-search';
import { vectorSchema } from './vector-schema';

afterAll(closeTestPostgres);

const STORE = 'vs_plans';
const embedder = new TopicAverageEmbedder();
const next = random(24);

describe('the beam of an approximate search on PostgreSQL', () => {
  it("widens with the index (recall@8 at 100k chunks: 0.698 at ef 200, 0.993 at ef 1000) up to pgvector's 1000", () => {
    // A store that is the whole index: 200 up to 20k chunks (recall 0.974 measured there), then rows / 100.
    expect(approximateBeam(undefined, 40, 20_000, 1)).toBe(200);
    expect(approximateBeam(undefined, 40, 50_000, 1)).toBe(500);
    expect(approximateBeam(undefined, 40, 100_000, 1)).toBe(1000);
    expect(approximateBeam(undefined, 40, 1_000_000, 1)).toBe(1000);
    // A scope that is a small share of a small index still widens by the square root of the spread.
    expect(approximateBeam(undefined, 40, 10_000, 4)).toBe(400);
    // Never below the rows asked for, never above pgvector's 1000.
    expect(approximateBeam(undefined, 1200, 1_000, 1)).toBe(1000);
    expect(approximateBeam(50, 120, 1_000, 1)).toBe(120);
  });

  it('is the configured beam (FATHOM_HNSW_EF_SEARCH) whatever the size of the index, widened only for a share of it', () => {
    expect(approximateBeam(600, 40, 1_000, 1)).toBe(600);
    expect(approximateBeam(300, 40, 1_000_000, 1)).toBe(300);
    expect(approximateBeam(300, 40, 1_000_000, 4)).toBe(600);
    expect(approximateBeam(1000, 40, 1_000, 4)).toBe(1000);
  });
});

describe.runIf(testBackends().includes('postgres'))('PgVectorIndex plans after a bulk load (PostgreSQL)', () => {
  let db: SqlDatabase;
  let index: PgVectorIndex;
  let files = 0;

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [vectorSchema]);
    index = new PgVectorIndex({ db, embedder, log: silentLogger });
  });
  afterAll(() => db?.close());

  /** Ingests `count` files of 100 chunks into the store, as the ingestion queue does (file by file). */
  async function ingest(count: number): Promise<void> {
    for (const end = files + count; files < end; files++) {
      const texts = Array.from({ length: 100 }, () => chunkText(files % 300, next));
      await index.addFileChunks({
        storeId: STORE,
        fileId: `file-${files}`,
        filename: `f${files}.txt`,
        attributes: null,
        chunks: texts.map((text, i) => ({ index: i, text, tokens: 80, vector: embedder.embedOne(text) })),
      });
    }
  }

  const hasStatistics = async () =>
    Boolean(await db.get("SELECT 1 AS yes FROM pg_stats WHERE tablename = 'vector_chunks' AND attname = 'store_id'"));

  const storeScope = async (files?: string[]) => {
    const info = (await index.storeInfo(STORE))!;
    const meta = { store_id: STORE, embedder_id: info.embedderId, dimensions: info.dimensions, chunk_count: info.chunks };
    return { meta, files, chunks: info.chunks };
  };

  it('an approximate search walks the HNSW index even on a table the planner has no statistics of', async () => {
    await ingest(8);
    expect(await hasStatistics()).toBe(false); // 800 rows: below the first analyze
    const vector = vectorLiteral(embedder.embedOne('what is the meaning of the topic words'));
    for (const filter of [undefined, ['file-1', 'file-3']]) {
      const { sql, params } = approximateStatement(await storeScope(filter), vector, 40);
      const plan = await db.transaction(async (tx) => {
        await applyApproximateSettings(tx, 200, 20_000);
        const rows = await tx.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain('Index Scan using vector_chunks_hnsw_384');
      expect(plan).not.toMatch(/\bSort\b/);
    }
  });

  it('ingestion analyses the table once it grew past 1,000 rows: the planner knows the store holds every row', async () => {
    await ingest(4);
    expect(await hasStatistics()).toBe(true);
    const estimate = await db.all<{ 'QUERY PLAN': string }>('EXPLAIN SELECT id FROM vector_chunks WHERE store_id = ?', [STORE]);
    const rows = Number(/rows=(\d+)/.exec(estimate[0]!['QUERY PLAN'])?.[1]);
    // Without statistics PostgreSQL guesses 0.5% of the table (6 rows) for any store.
    expect(rows).toBeGreaterThan(1000);
  });
});
