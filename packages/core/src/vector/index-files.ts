import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a store's index files live in the index directory: per shard `<store>.<shard>.hnsw` (a graph) or
 * `<store>.<shard>.ivf` (an IVF), each with its `.json` sidecar; `<store>.hnsw` is the one-graph file of
 * earlier versions.
 */
export class IndexFiles {
  constructor(private readonly directory: string) {}

  graph(storeId: string, shard: number): string {
    return join(this.directory, `${safe(storeId)}.${shard}.hnsw`);
  }

  ivf(storeId: string, shard: number): string {
    return join(this.directory, `${safe(storeId)}.${shard}.ivf`);
  }

  /** The one-graph file of earlier versions (`<store>.hnsw`): replaced by shard files. */
  legacy(storeId: string): string {
    return join(this.directory, `${safe(storeId)}.hnsw`);
  }

  /** Deletes an index file and its sidecar (missing ones are fine). */
  remove(path: string): void {
    for (const file of [path, `${path}.json`]) rmSync(file, { force: true });
  }
}

const safe = (storeId: string) => storeId.replace(/[^\w.-]/g, '_');
