/**
 * The exact scan a filtered walk falls back to, in the graph worker: the allowed chunks' vectors read from the
 * database file by id range (a read-only connection of this thread), scored against the query. Nothing runs on
 * the main thread. hnswlib-node's `getPoint` would read them from the graph, but it builds a JavaScript array
 * of 384 numbers per call: ~64 µs a vector, against ~5-10 µs for the row (docs/performance.md).
 */
import Database from 'better-sqlite3';
import type { HnswSearchResult } from './hnsw-protocol';
import { dot } from './vector-blob';

/** Where the scan reads: the database file, and which labels this shard's graph holds (`label % count === index`). */
export interface ScanSource {
  database: string;
  shard: { index: number; count: number };
}

type RangeRows = Database.Statement<[number, number, number, number], [number, Buffer]>;
const statements = new Map<string, RangeRows>();

/** One read-only connection per database file, kept for the thread's life. */
function rangeRows(database: string): RangeRows {
  let statement = statements.get(database);
  if (!statement) {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    statement = db
      .prepare<[number, number, number, number], [number, Buffer]>(
        'SELECT id, vector FROM vector_chunks WHERE id BETWEEN ? AND ? AND id % ? = ?',
      )
      .raw();
    statements.set(database, statement);
  }
  return statement;
}

/**
 * The `k` chunks of the `allowed` ranges (sorted, disjoint, inclusive `[first, last]` pairs, flattened) of this
 * shard nearest to `query`, best first, with the distance the graph reports (1 - cosine of unit vectors).
 * Chunks deleted from the database are not read.
 */
export function scanAllowed(source: ScanSource, query: Float32Array, allowed: Float64Array, k: number): HnswSearchResult {
  const statement = rangeRows(source.database);
  const dimensions = query.length;
  const vector = new Float32Array(dimensions);
  const bytes = new Uint8Array(vector.buffer);
  // The best `k` so far, nearest first (k is a search's depth: tens).
  const labels: number[] = [];
  const distances: number[] = [];
  for (let range = 0; range < allowed.length; range += 2) {
    for (const [id, blob] of statement.iterate(allowed[range]!, allowed[range + 1]!, source.shard.count, source.shard.index)) {
      if (blob.byteLength !== bytes.byteLength) continue;
      bytes.set(blob);
      const distance = 1 - dot(query, vector);
      if (labels.length === k && distance >= distances[k - 1]!) continue;
      let at = labels.length === k ? k - 1 : labels.length;
      while (at > 0 && distances[at - 1]! > distance) {
        labels[at] = labels[at - 1]!;
        distances[at] = distances[at - 1]!;
        at--;
      }
      labels[at] = id;
      distances[at] = distance;
    }
  }
  return { labels, distances };
}
