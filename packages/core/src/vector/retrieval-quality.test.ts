/**
 * Retrieval quality on a corpus the tests carry: recall@8 of hybrid search must reach 0.9 with the
 * model-free hash embedder, on SQLite (`VectorIndex`) and on PostgreSQL (`PgVectorIndex`, PGlite in
 * tests) alike. With `FATHOM_TEST_MODELS_DIR` pointing at a transformers.js models
 * directory (model id from `FATHOM_TEST_MODEL`, default Xenova/all-MiniLM-L6-v2), the same test also
 * runs with that real model, offline; without it that case is skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../storage';
import { HashEmbedder, TransformersEmbedder, type Embedder } from '../embeddings';
import { silentLogger } from '../internal/logger';
import { closeTestPostgres, sharedTestDatabase, testBackends } from '../test/postgres';
import { PASSAGES, QUESTIONS } from './__fixtures__/retrieval-corpus';
import { PgVectorIndex } from './pg-vector-index';
import type { VectorIndexContract } from './types';
import { VectorIndex } from './vector-index';
import { vectorSchema } from './vector-schema';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
afterAll(closeTestPostgres);

async function openIndex(
  embedder: Embedder,
  backend: 'sqlite' | 'postgres',
): Promise<{ index: VectorIndexContract; close(): Promise<void> }> {
  if (backend === 'postgres') {
    const shared = await sharedTestDatabase('postgres', [vectorSchema]);
    const index = new PgVectorIndex({ db: await shared.open(), embedder, log: silentLogger });
    return { index, close: () => shared.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'fathom-quality-'));
  dirs.push(dir);
  const db = new SqliteDatabase({ schemas: [vectorSchema] });
  return { index: new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger }), close: () => db.close() };
}

async function measureRecall(
  embedder: Embedder,
  backend: 'sqlite' | 'postgres' = 'sqlite',
  k = 8,
): Promise<{ recall: number; misses: string[] }> {
  const { index, close } = await openIndex(embedder, backend);
  try {
    const ids = Object.keys(PASSAGES);
    const { embeddings } = await embedder.embed({ values: ids.map((id) => PASSAGES[id]!) });
    for (const [i, id] of ids.entries()) {
      const text = PASSAGES[id]!;
      await index.addFileChunks({
        storeId: 'vs_quality',
        fileId: `file-${id}`,
        filename: `${id}.md`,
        attributes: null,
        chunks: [{ index: 0, text, tokens: embedder.countTokens(text), vector: embeddings[i]! }],
      });
    }
    const misses: string[] = [];
    for (const { question, answer } of QUESTIONS) {
      const hits = await index.search(['vs_quality'], { query: question, maxNumResults: k });
      if (!hits.some((hit) => hit.file_id === `file-${answer}`)) misses.push(question);
    }
    return { recall: 1 - misses.length / QUESTIONS.length, misses };
  } finally {
    await index.close();
    await close();
  }
}

describe('retrieval quality (recall@8 of hybrid search)', () => {
  it('carries a corpus of at least 30 passages and 20 questions', () => {
    expect(Object.keys(PASSAGES).length).toBeGreaterThanOrEqual(30);
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(testBackends())('reaches at least 0.9 with the hash embedder on %s', async (backend) => {
    const { recall, misses } = await measureRecall(new HashEmbedder(), backend);
    expect(misses).toEqual([]);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });

  const modelsDir = process.env.FATHOM_TEST_MODELS_DIR;
  it.runIf(!!modelsDir)('reaches at least 0.9 with a real model from FATHOM_TEST_MODELS_DIR', async () => {
    const embedder = await TransformersEmbedder.load({
      modelsDir: modelsDir!,
      modelId: process.env.FATHOM_TEST_MODEL || 'Xenova/all-MiniLM-L6-v2',
      allowRemoteModels: false,
    });
    try {
      const { recall, misses } = await measureRecall(embedder);
      expect(recall, `missed: ${misses.join(' | ')}`).toBeGreaterThanOrEqual(0.9);
    } finally {
      await embedder.close();
    }
  });
});
