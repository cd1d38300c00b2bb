import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../internal/logger';
import { HnswClient } from './hnsw-client';
import type { HnswSearchResult } from './hnsw-protocol';
import { blobToVector } from './vector-blob';

/** HNSW inserts queued in the worker before `add` waits (backpressure). */
const MAX_INFLIGHT_VECTORS = 4096;
const REBUILD_BATCH = 1000;

export interface StoreGraphsOptions {
  /** Index files live here (`<store>.hnsw` + `<store>.hnsw.json`). */
  directory: string;
  m: number;
  efConstruction: number;
  log: Logger;
  /** The store's SQLite state: dimensions, generation and chunk count (undefined = nothing indexed). */
  meta(storeId: string): { dimensions: number; generation: number; chunk_count: number } | undefined;
  /** Vectors of the store in id order, after `afterId` (for rebuilds). */
  vectorsAfter(storeId: string, afterId: number, limit: number): Array<{ id: number; vector: Buffer }>;
}

/**
 * The HNSW graph of each store, held by the worker thread: opened from its file when the file's
 * generation matches SQLite, otherwise rebuilt from the vectors in SQLite; inserts run behind the
 * caller with bounded backpressure; a failed insert drops the graph so the next use rebuilds it.
 */
export class StoreGraphs {
  private readonly hnsw = new HnswClient();
  private readonly ready = new Map<string, Promise<void>>();
  private readonly inflight = new Set<{ size: number; done: Promise<void> }>();
  private inflightVectors = 0;

  constructor(private readonly options: StoreGraphsOptions) {
    mkdirSync(options.directory, { recursive: true });
  }

  /** Makes the store's graph ready in the worker (no-op for a store with nothing indexed). */
  ensure(storeId: string): Promise<void> {
    if (this.hnsw.crashed) this.ready.clear();
    const existing = this.ready.get(storeId);
    if (existing) return existing;
    if (!this.options.meta(storeId)) return Promise.resolve();
    const opening = this.open(storeId).catch((error) => {
      this.ready.delete(storeId);
      throw error;
    });
    this.ready.set(storeId, opening);
    return opening;
  }

  /**
   * Queues an insert (the worker applies requests in order, so a later search already sees it) and
   * waits only when too many vectors are in flight.
   */
  async add(storeId: string, labels: number[], vectors: Float32Array, generation: number): Promise<void> {
    const entry = {
      size: labels.length,
      done: this.hnsw.add(storeId, labels, vectors, generation).catch(async (error: Error) => {
        this.options.log.error(`HNSW update of ${storeId} failed (${error.message}); its index will be rebuilt from SQLite.`);
        await this.drop(storeId).catch(() => undefined);
      }),
    };
    this.inflight.add(entry);
    this.inflightVectors += entry.size;
    void entry.done.then(() => {
      this.inflight.delete(entry);
      this.inflightVectors -= entry.size;
    });
    while (this.inflightVectors > MAX_INFLIGHT_VECTORS) await this.inflight.values().next().value!.done;
  }

  delete(storeId: string, labels: number[], generation: number): Promise<void> {
    return this.hnsw.delete(storeId, labels, generation);
  }

  /** Posts the search at once (synchronously), so callers can overlap it with other work. */
  search(storeId: string, vector: Float32Array, k: number, ef: number): Promise<HnswSearchResult> {
    return this.hnsw.search(storeId, vector, k, ef);
  }

  /** Forgets the store's graph in the worker and deletes its files. */
  async drop(storeId: string): Promise<void> {
    this.ready.delete(storeId);
    await this.hnsw.drop(storeId);
    const path = this.pathOf(storeId);
    for (const file of [path, `${path}.json`, `${path}.tmp`]) rmSync(file, { force: true });
  }

  /** Saves every changed graph now (they are also saved a few seconds after changes). */
  flush(): Promise<void> {
    return this.hnsw.flush();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight].map((entry) => entry.done));
    await this.hnsw.close();
  }

  private pathOf(storeId: string): string {
    return join(this.options.directory, `${storeId.replace(/[^\w.-]/g, '_')}.hnsw`);
  }

  /** Loads the file when it matches SQLite's generation; otherwise rebuilds from SQLite's vectors. */
  private async open(storeId: string): Promise<void> {
    const meta = this.options.meta(storeId)!;
    const opened = await this.hnsw.open({
      store: storeId,
      path: this.pathOf(storeId),
      dimensions: meta.dimensions,
      generation: meta.generation,
      capacity: meta.chunk_count + 1024,
      m: this.options.m,
      efConstruction: this.options.efConstruction,
    });
    if (opened.loaded) return;
    if (meta.chunk_count > 0) this.options.log.info(`Rebuilding the HNSW index of ${storeId} from ${meta.chunk_count} vectors in SQLite.`);
    let after = 0;
    // The next batch is read from SQLite while the worker inserts the previous one, so the worker never
    // waits for this thread; at most two batches are in flight.
    let previous: Promise<void> = Promise.resolve();
    for (;;) {
      const rows = this.options.vectorsAfter(storeId, after, REBUILD_BATCH);
      if (rows.length === 0) break;
      const flat = new Float32Array(rows.length * meta.dimensions);
      rows.forEach((row, i) => flat.set(blobToVector(row.vector), i * meta.dimensions));
      after = rows.at(-1)!.id;
      const adding = this.hnsw.add(
        storeId,
        rows.map((row) => row.id),
        flat,
        -1,
      );
      adding.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled
      await previous;
      previous = adding;
    }
    await previous;
    // Only now is the graph at the store's generation (a save before this would claim too much).
    await this.hnsw.add(storeId, [], new Float32Array(0), meta.generation);
  }
}
