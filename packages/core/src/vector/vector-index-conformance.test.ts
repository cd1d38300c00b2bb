import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { FakeVectorIndex } from '../documents/__fixtures__/fakes';
import { silentLogger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { PgVectorIndex } from './pg-vector-index';
import type { VectorIndexContract } from './types';
import { describeVectorIndexConformance } from './vector-index-conformance';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

afterAll(closeTestPostgres);

const backends = testBackends();

if (backends.includes('sqlite')) {
  describeVectorIndexConformance('VectorIndex (SQLite: HNSW worker + FTS5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-vector-conformance-'));
    const db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
    const indexes: VectorIndexContract[] = [];
    return {
      async open(embedder) {
        const index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger });
        indexes.push(index);
        return index;
      },
      async close() {
        for (const index of indexes) await index.close();
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

if (backends.includes('postgres')) {
  describeVectorIndexConformance('PgVectorIndex (PostgreSQL: pgvector HNSW + full text)', async () => {
    const shared = await sharedTestDatabase('postgres', [vectorSchema]);
    const db = await shared.open();
    const indexes: VectorIndexContract[] = [];
    return {
      async open(embedder) {
        const index = new PgVectorIndex({ db, embedder, log: silentLogger });
        indexes.push(index);
        return index;
      },
      async close() {
        for (const index of indexes) await index.close();
        await shared.close();
      },
    };
  });
}

describeVectorIndexConformance('FakeVectorIndex (the documents tests’ fake)', async () => {
  let first: FakeVectorIndex | undefined;
  return {
    async open(embedder) {
      const index = new FakeVectorIndex(embedder.id, first);
      first ??= index;
      return index;
    },
    async close() {},
  };
});
