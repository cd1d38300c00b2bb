/**
 * Why a chunk was not the top vector hit for its own text after a crash (the scale bench's crash check):
 * for each miss, an exact scan beside the graph. Answers, per chunk: its row id and shard; its exact
 * self-similarity (the stored vector against the embedded text); how many chunks of the store an exact
 * scan ranks at or above it (identical or equally near vectors); the rank Fathom's vector search gives it
 * with `max_num_results` 10; whether its id is in its shard's graph as saved by a flush (hnswlib reads the
 * file beside the server's copy), and whether that graph alone finds it at the server's beam.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { type Fathom, VectorIndex } from '../../packages/core/src';
import { searchBeam } from '../../packages/core/src/vector/graph-parameters';
import { SHARDS } from '../../packages/core/src/vector/store-graphs';
import { blobToVector, dot } from '../../packages/core/src/vector/vector-blob';
import { fileNumber, fileTexts, type Layout, type TopicAverageEmbedder } from './corpus';
import type { Miss } from './node';

export interface MissDiagnosis {
  file: number;
  chunk: number;
  id: number | null;
  shard: number | null;
  /** Cosine of the stored vector with the embedded text (1.0: the same vector). */
  selfSimilarity: number | null;
  /** Chunks of the store an exact scan puts at or above the chunk's own similarity, itself included (1: it is the top hit). */
  exactRank: number | null;
  /** 1-based rank of the chunk in Fathom's vector search with `max_num_results` 10, 0 when not among them. */
  rankOf10: number;
  /** The top hit of Fathom's vector search and its score. */
  topHit: { text: string; score: number; sameVector: boolean } | null;
  /** The chunk's id is a label of its shard's graph file (after a flush); null when the file is not current. */
  inGraph: boolean | null;
  /** The shard file's sidecar generation and the store's generation in the database. */
  graphGeneration: number | null;
  storeGeneration: number | null;
  /** The shard's graph alone (hnswlib, the server's beam), searched for the chunk's own vector: rank of the chunk, 0 = not in the top 10. */
  graphRank: number | null;
}

const { HierarchicalNSW } = hnswlib;

export async function diagnoseMisses(
  fathom: Fathom,
  embedder: TopicAverageEmbedder,
  command: { layout: Layout; storeIds: string[]; misses: Miss[] },
): Promise<MissDiagnosis[]> {
  const { layout, storeIds } = command;
  if (fathom.vectorIndex instanceof VectorIndex) await fathom.vectorIndex.flush();
  const db = fathom.database;
  const dataDir = process.env.FATHOM_DATA_DIR!;
  const out: MissDiagnosis[] = [];
  const graphs = new Map<string, InstanceType<typeof HierarchicalNSW> | null>();
  for (const miss of command.misses) {
    const storeId = storeIds[miss.store]!;
    const file = fileNumber(layout, miss.store, miss.index);
    const text = fileTexts(file, layout.chunksPerFile)[miss.chunk]!;
    const query = embedder.embedOne(text);
    const row = await db.get<{ id: number; vector: Buffer }>(
      'SELECT id, vector FROM vector_chunks WHERE store_id = ? AND file_id = ? AND chunk_index = ?',
      [storeId, `file-${file}`, miss.chunk],
    );
    const meta = await db.get<{ generation: number; chunk_count: number }>(
      'SELECT generation, chunk_count FROM vector_index_meta WHERE store_id = ?',
      [storeId],
    );
    const selfSimilarity = row ? dot(query, blobToVector(row.vector)) : null;
    // Exact rank over the whole store, streamed in id order.
    let exactRank: number | null = null;
    if (selfSimilarity !== null) {
      exactRank = 0;
      let after = 0;
      for (;;) {
        const rows = await db.all<{ id: number; vector: Buffer }>(
          'SELECT id, vector FROM vector_chunks WHERE store_id = ? AND id > ? ORDER BY id LIMIT 20000',
          [storeId, after],
        );
        if (rows.length === 0) break;
        for (const other of rows) if (dot(query, blobToVector(other.vector)) >= selfSimilarity - 1e-6) exactRank++;
        after = rows.at(-1)!.id;
      }
    }
    const hits = await fathom.vectorIndex.search([storeId], { query: text, mode: 'vector', maxNumResults: 10 });
    const rankOf10 = hits.findIndex((hit) => hit.content[0]?.text === text) + 1;
    const top = hits[0];
    const topHit = top
      ? {
          text: top.content[0]!.text.slice(0, 60),
          score: top.score,
          sameVector: embedder.embedOne(top.content[0]!.text).every((v, i) => v === query[i]),
        }
      : null;
    // The shard's graph as the server saved it.
    const shard = row ? row.id % SHARDS : null;
    let inGraph: boolean | null = null;
    let graphGeneration: number | null = null;
    let graphRank: number | null = null;
    if (row && shard !== null) {
      const path = join(dataDir, 'vector-index', `${storeId.replace(/[^\w.-]/g, '_')}.${shard}.hnsw`);
      if (existsSync(`${path}.json`))
        graphGeneration = (JSON.parse(readFileSync(`${path}.json`, 'utf8')) as { generation: number }).generation;
      if (!graphs.has(path)) {
        let index: InstanceType<typeof HierarchicalNSW> | null = null;
        if (existsSync(path)) {
          index = new HierarchicalNSW('cosine', embedder.dimensions);
          index.readIndexSync(path);
        }
        graphs.set(path, index);
      }
      const index = graphs.get(path);
      if (index && graphGeneration === meta?.generation) {
        inGraph = index.getIdsList().includes(row.id);
        index.setEf(searchBeam(meta.chunk_count, 40));
        const result = index.searchKnn(Array.from(query), 10);
        graphRank = result.neighbors.indexOf(row.id) + 1;
      }
    }
    out.push({
      file,
      chunk: miss.chunk,
      id: row?.id ?? null,
      shard,
      selfSimilarity,
      exactRank,
      rankOf10,
      topHit,
      inGraph,
      graphGeneration,
      storeGeneration: meta?.generation ?? null,
      graphRank,
    });
  }
  return out;
}
