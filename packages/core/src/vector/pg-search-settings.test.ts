/**
 * The vector settings on PostgreSQL (issue 24): the operator's search beam (`FATHOM_HNSW_EF_SEARCH`) reaches
 * pgvector's `hnsw.ef_search` as it reaches SQLite's graphs, clamped to pgvector's 1000; unset, the beam follows
 * the index. `FATHOM_EXACT_SEARCH_CHUNKS` moves the size up to which a store is scanned exactly; unset, it is 4,096.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { HashEmbedder } from '../embeddings';
import { type Logger, silentLogger } from '../internal/logger';
import type { SqlClient, SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { openVectorIndex } from './open-vector-index';
import { PgVectorIndex } from './pg-vector-index';
import { vectorSchema } from './vector-schema';

afterAll(closeTestPostgres);

const STORE = 'vs_beam';
// 16 dimensions: the HNSW index of a store above PostgreSQL's exact-scan size (4,096 chunks) builds in seconds.
const embedder = new HashEmbedder({ dimensions: 16 });
const CHUNKS = 4_200;

/**
 * `db`, recording in `beams` the `hnsw.ef_search` in force, read back in the same transaction, whenever a
 * nearest-neighbour statement runs.
 */
function recordBeams(db: SqlClient, beams: number[]): SqlClient {
  const wrap = (inner: SqlClient): SqlClient => ({
    dialect: inner.dialect,
    async all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
      if (/ORDER BY distance LIMIT/.test(sql)) {
        const row = await inner.get<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef");
        beams.push(Number(row?.ef));
      }
      return inner.all<Row>(sql, params);
    },
    get: <Row>(sql: string, params?: readonly unknown[]) => inner.get<Row>(sql, params),
    run: (sql: string, params?: readonly unknown[]) => inner.run(sql, params),
    transaction: <T>(fn: (tx: SqlClient) => Promise<T>) => inner.transaction((tx) => fn(wrap(tx))),
  });
  return wrap(db);
}

describe.runIf(testBackends().includes('postgres'))('FATHOM_HNSW_EF_SEARCH and FATHOM_EXACT_SEARCH_CHUNKS on PostgreSQL', () => {
  let db: SqlDatabase;

  beforeAll(async () => {
    db = await openTestDatabase('postgres', [vectorSchema]);
    const index = new PgVectorIndex({ db, embedder, log: silentLogger });
    for (let file = 0; file < CHUNKS / 600; file++) {
      await index.addFileChunks({
        storeId: STORE,
        fileId: `file-${file}`,
        filename: `f${file}.txt`,
        attributes: null,
        chunks: Array.from({ length: 600 }, (_, i) => {
          const text = `chunk ${file * 600 + i} about topic ${(file * 600 + i) % 97} and word${i % 13}`;
          return { index: i, text, tokens: 10, vector: embedder.embedOne(text) };
        }),
      });
    }
  });
  afterAll(() => db?.close());

  /** The `hnsw.ef_search` a vector search of the store runs with, under these environment settings. */
  async function beamUnder(env: Record<string, string>, log: Logger = silentLogger): Promise<number[]> {
    const beams: number[] = [];
    const config = loadConfig({ FATHOM_DATA_DIR: '/tmp/fathom-pg-ef-search', ...env });
    const index = openVectorIndex({ db: recordBeams(db, beams), embedder, dataDir: config.dataDir, log, settings: config.vector });
    const hits = await index.search([STORE], { query: 'chunk about topic 12 and word3', mode: 'vector', maxNumResults: 10 });
    expect(hits).toHaveLength(10);
    return beams;
  }

  it('sets hnsw.ef_search of an approximate search to the configured beam', async () => {
    // Unset: the beam that follows the index (200 below 20k chunks); set: that beam, above or below it.
    expect(await beamUnder({})).toEqual([200]);
    expect(await beamUnder({ FATHOM_HNSW_EF_SEARCH: '64' })).toEqual([64]);
    expect(await beamUnder({ FATHOM_HNSW_EF_SEARCH: '700' })).toEqual([700]);
    // Never below the candidate depth (40 for 10 results).
    expect(await beamUnder({ FATHOM_HNSW_EF_SEARCH: '8' })).toEqual([40]);
  });

  it("clamps a beam above pgvector's 1000, with a warning at start instead of an error at search time", async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    expect(await beamUnder({ FATHOM_HNSW_EF_SEARCH: '2500' }, log)).toEqual([1000]);
    expect(warnings).toEqual(["HNSW search beam 2500 is above pgvector's largest hnsw.ef_search; PostgreSQL searches use 1000."]);
  });

  it('scans a store exactly up to FATHOM_EXACT_SEARCH_CHUNKS chunks (4,096 when unset)', async () => {
    // 4,200 chunks: above the default, so the HNSW index answers (a beam is set); an exact scan sets none.
    expect(await beamUnder({})).toEqual([200]);
    expect(await beamUnder({ FATHOM_EXACT_SEARCH_CHUNKS: '4200' })).toEqual([]);
    expect(await beamUnder({ FATHOM_EXACT_SEARCH_CHUNKS: '4199' })).toEqual([200]);
    // Lower than the default: still approximate for this store (PostgreSQL also scans a store exactly below
    // sqrt(depth x chunks of its size), here 410).
    expect(await beamUnder({ FATHOM_EXACT_SEARCH_CHUNKS: '100' })).toEqual([200]);
  });
});
