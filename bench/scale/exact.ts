/**
 * The recall reference of the scale bench on SQLite: exact top-k by cosine over the vectors the store holds,
 * read from the data dir's database (read-only, beside the running server) instead of re-embedding every
 * chunk's text in the bench process. The stored vectors are the ones the embedder produced for those texts,
 * so the reference is the same. Re-embedding the texts and scoring them in JavaScript took ~4.4 s of CPU per
 * 10k chunks (about 7 minutes of CPU at 1M, most of an hour at the machine's usual load); scoring the stored
 * vectors in a JavaScript loop, 1.2 s; hnswlib's exact index, below. Answers are cached in the
 * data dir (`scale-bench-exact.json`) for a kept data dir (SCALE_DATA_DIR) measured again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';

/** Per query, the `k` nearest (file id, chunk index), best first. */
export type ExactAnswer = Array<Array<{ fileId: string; chunk: number }>>;

/**
 * What a filter leaves to one query's reference: `keeps` says per file id whether its chunks are searched.
 * Queries whose filters have the same `name` share one exact index (the same files).
 */
export interface ExactScope {
  name: string;
  keeps: (fileId: string) => boolean;
}

/**
 * Exact top-k of each query over the store's chunks. With `filtered`, query q searches only the files its scope
 * keeps (`scopes[q]`: the filtered recall), every scope filled in one pass over the store's rows; `label` names
 * the set of scopes in the cache file's name.
 */
export function exactTopKFromDataDir(
  dataDir: string,
  storeId: string,
  queries: Float32Array[],
  k: number,
  filtered?: { label: string; scopes: ExactScope[] },
): ExactAnswer {
  const dims = queries[0]!.length;
  const cachePath = join(dataDir, filtered ? `scale-bench-exact-${filtered.label}.json` : 'scale-bench-exact.json');
  const db = new Database(join(dataDir, 'fathom.db'), { readonly: true, fileMustExist: true });
  try {
    const perFile = db
      .prepare('SELECT file_id AS fileId, COUNT(*) AS chunks FROM vector_chunks WHERE store_id = ? GROUP BY file_id')
      .all(storeId) as Array<{ fileId: string; chunks: number }>;
    const chunks = perFile.reduce((sum, file) => sum + file.chunks, 0);
    const cacheKey = `${storeId}|${chunks}|${queries.length}|${k}|${queries[0]!.slice(0, 4).join(',')}`;
    if (existsSync(cachePath)) {
      const cached = JSON.parse(readFileSync(cachePath, 'utf8')) as { key: string; answer: ExactAnswer };
      if (cached.key === cacheKey) return cached.answer;
    }
    // One exact index per distinct scope (one for the whole store without a filter), sized by the files it keeps.
    const scopes = filtered?.scopes ?? queries.map(() => ({ name: 'all', keeps: () => true }));
    const names = [...new Set(scopes.map((scope) => scope.name))];
    const groups = names.map((name) => {
      const { keeps } = scopes.find((scope) => scope.name === name)!;
      const size = perFile.reduce((sum, file) => sum + (keeps(file.fileId) ? file.chunks : 0), 0);
      const index = new hnswlib.BruteforceSearch('ip', dims);
      index.initIndex(Math.max(1, size));
      return { name, keeps, size, index };
    });
    const groupsOfFile = new Map(perFile.map((file) => [file.fileId, groups.filter((group) => group.keeps(file.fileId))]));
    const rows = db.prepare('SELECT id, file_id, vector FROM vector_chunks WHERE store_id = ?').raw().iterate(storeId) as IterableIterator<
      [number, string, Buffer]
    >;
    const vector = new Float32Array(dims);
    const bytes = new Uint8Array(vector.buffer);
    const point = new Array<number>(dims);
    for (const [id, fileId, blob] of rows) {
      const into = groupsOfFile.get(fileId);
      if (!into?.length) continue;
      bytes.set(blob);
      for (let d = 0; d < dims; d++) point[d] = vector[d]!;
      for (const group of into) group.index.addPoint(point, id);
    }
    const lookup = db.prepare('SELECT file_id AS fileId, chunk_index AS chunk FROM vector_chunks WHERE id = ?');
    const answer: ExactAnswer = queries.map((query, q) => {
      const group = groups.find((candidate) => candidate.name === scopes[q]!.name)!;
      if (group.size === 0) return [];
      const { neighbors } = group.index.searchKnn(Array.from(query), Math.min(k, group.size));
      return neighbors.map((id) => lookup.get(id) as { fileId: string; chunk: number });
    });
    writeFileSync(cachePath, JSON.stringify({ key: cacheKey, answer }));
    return answer;
  } finally {
    db.close();
  }
}

/**
 * Exact top-k ids by cosine of each query over `count` normalised vectors, with hnswlib's exact index
 * (`BruteforceSearch`, the library the server's graphs use; SIMD distances): inner product over normalised
 * vectors is their cosine. `vectors` yields each (id, vector); the vector may be reused between items.
 */
export function exactTopK(
  dims: number,
  count: number,
  queries: Float32Array[],
  k: number,
  vectors: () => Iterable<{ id: number; vector: Float32Array }>,
): number[][] {
  const index = new hnswlib.BruteforceSearch('ip', dims);
  index.initIndex(count);
  const point = new Array<number>(dims);
  for (const { id, vector } of vectors()) {
    for (let d = 0; d < dims; d++) point[d] = vector[d]!;
    index.addPoint(point, id);
  }
  return queries.map((query) => index.searchKnn(Array.from(query), Math.min(k, count)).neighbors);
}

/** The same for the rows of a matrix (`count` x `dims`, row-major): the ids are the row numbers. */
export function exactTopKOfMatrix(matrix: Float32Array, dims: number, queries: Float32Array[], k: number): number[][] {
  const count = matrix.length / dims;
  return exactTopK(dims, count, queries, k, function* () {
    for (let id = 0; id < count; id++) yield { id, vector: matrix.subarray(id * dims, (id + 1) * dims) };
  });
}
