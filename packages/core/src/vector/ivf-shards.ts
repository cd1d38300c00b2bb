/**
 * The IVF indexes of the graph worker (`hnsw-worker.ts`): a shard of a large store is served by an inverted-file
 * index instead of an HNSW graph, behind the same messages (`add`, `delete`, `search`, `labels`, `unload`,
 * `drop`, `flush`) plus `open-ivf`, `create-ivf` and `replace-ivf`. Saved as the graphs are: a few seconds after changes, on
 * `flush` and `unload`, the file (`<store>.<shard>.ivf`, written to a temporary file and renamed) first and
 * then its sidecar (`.ivf.json`) with the database generation it reflects; never while that is unknown.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import type { HnswRequest, HnswSearchResult, IvfOpenResult, IvfSidecar } from './hnsw-protocol';
import { markDirty as scheduleSave, readSidecar, type SavedIndex, TMP_SUFFIX } from './index-saves';
import { IvfIndex } from './ivf';

interface IvfShard extends SavedIndex {
  index: IvfIndex;
  path: string;
  dimensions: number;
  embedderId: string;
  closed?: boolean;
  /** Why its lists could not be read from its file (each later request on it fails with this). */
  failed?: Error;
}

/** Time a slice of the background read of an opened index takes at most, about (`IvfShards.read`). */
const READ_SLICE_MS = 4;
/** Bytes of a loaded index mapped per slice in the background (`IvfShards.warm`): 256 pages. */
const WARM_SLICE_BYTES = 256 * 4096;

export class IvfShards {
  private readonly shards = new Map<string, IvfShard>();

  /** `enqueue` runs a task in the worker's request queue (a timed save never overlaps a request). */
  constructor(private readonly enqueue: (task: () => Promise<void>) => void) {}

  has(store: string): boolean {
    return this.shards.has(store);
  }

  /** Answers a request for an IVF shard (the caller checked `has`, or the op creates one). */
  handle(request: HnswRequest): unknown {
    switch (request.op) {
      case 'open-ivf':
        return this.open(request);
      case 'create-ivf': {
        this.close(request.store);
        const index = new IvfIndex({ dimensions: request.dimensions, centroids: request.centroids });
        const { path, dimensions, embedderId } = request;
        this.shards.set(request.store, { index, path, dimensions, embedderId, generation: -1, dirty: false, firstDirtyAt: 0 });
        return { bytes: index.bytes };
      }
      case 'replace-ivf': {
        const shard = this.get(request.from);
        this.close(request.to);
        this.shards.delete(request.from);
        this.shards.set(request.to, shard);
        return undefined;
      }
      case 'add': {
        const shard = this.get(request.store);
        if (request.labels.length) shard.index.add(request.labels, request.vectors);
        this.markDirty(shard, request.generation);
        return { bytes: shard.index.bytes };
      }
      case 'delete': {
        const shard = this.get(request.store);
        const removed = shard.index.delete(request.labels);
        this.markDirty(shard, request.generation);
        return removed;
      }
      case 'search': {
        // The index decides: an exact score of the allowed labels when they are few, else its nearest lists.
        const { index } = this.get(request.store);
        const { allowed, share = 1 } = request;
        const hits = index.search(
          request.vector,
          request.k,
          allowed ? { allowed, exactLimit: Math.round(index.exactFilterLimit() / share) } : {},
        );
        return { labels: hits.map((hit) => hit.label), distances: hits.map((hit) => hit.distance) } satisfies HnswSearchResult;
      }
      case 'labels':
        return this.get(request.store).index.labels();
      case 'unload': {
        const shard = this.shards.get(request.store);
        if (shard) save(shard);
        this.close(request.store);
        return undefined;
      }
      case 'drop':
        this.close(request.store);
        return undefined;
      default:
        throw new Error(`IVF shards do not answer '${request.op}'.`);
    }
  }

  /** Saves every changed index. */
  flush(): void {
    for (const shard of this.shards.values()) save(shard);
  }

  private open(request: Extract<HnswRequest, { op: 'open-ivf' }>): IvfOpenResult {
    this.close(request.store);
    const { path } = request;
    if (!existsSync(path)) return { state: 'empty', reason: 'it has no IVF file', count: 0, bytes: 0 };
    const sidecar = readSidecar<IvfSidecar>(path);
    if (!sidecar) return { state: 'empty', reason: 'its IVF file has no readable sidecar (a save was interrupted)', count: 0, bytes: 0 };
    if (sidecar.dimensions !== request.dimensions || sidecar.embedderId !== request.embedderId) {
      return {
        state: 'empty',
        reason: `its IVF file holds ${sidecar.dimensions}-d vectors of '${sidecar.embedderId}', the store ${request.dimensions}-d of '${request.embedderId}'`,
        count: 0,
        bytes: 0,
      };
    }
    let index: IvfIndex;
    try {
      index = IvfIndex.open(path, { nprobe: sidecar.nprobe });
    } catch (error) {
      return { state: 'empty', reason: `its IVF file could not be read (${(error as Error).message})`, count: 0, bytes: 0 };
    }
    const current = sidecar.generation === request.generation;
    const shard: IvfShard = {
      index,
      path,
      dimensions: request.dimensions,
      embedderId: request.embedderId,
      generation: current ? request.generation : -1,
      dirty: false,
      firstDirtyAt: 0,
    };
    this.shards.set(request.store, shard);
    // A file of an older format (float rows, before 2026-11-27) is written again in the current one (a quarter of the size).
    if (current && index.olderFile) this.markDirty(shard, request.generation);
    this.read(shard);
    const size = { count: index.count, bytes: index.bytes, lists: index.lists };
    return current ? { state: 'current', ...size } : { state: 'behind', fileGeneration: sidecar.generation, ...size };
  }

  /**
   * Reads the lists of an opened index in the background, a slice at a time between requests (a search reads
   * the lists it probes itself, so the shard answers at once after a restart), then maps its pages (`warm`).
   */
  private read(shard: IvfShard): void {
    this.enqueue(async () => {
      if (shard.closed) return;
      let done: boolean;
      try {
        done = shard.index.readMore(READ_SLICE_MS);
      } catch (error) {
        // A task that throws would stop the worker's queue: the shard fails its requests instead.
        shard.failed = error as Error;
        return;
      }
      if (done) this.warm(shard, 0);
      else setImmediate(() => this.read(shard));
    });
  }

  /**
   * Maps a loaded index's pages in the background, a slice at a time between requests (a search waits for one
   * slice at most, ~2 ms), so the first searches after a restart do not each pay for the pages they read first.
   */
  private warm(shard: IvfShard, from: number): void {
    this.enqueue(async () => {
      if (shard.closed) return;
      const next = shard.index.warm(from, WARM_SLICE_BYTES);
      // The next slice after the event loop's turn: requests that arrived meanwhile are queued before it.
      if (next !== undefined) setImmediate(() => this.warm(shard, next));
    });
  }

  private get(store: string): IvfShard {
    const shard = this.shards.get(store);
    if (!shard) throw new Error(`IVF index of store ${store} is not open.`);
    if (shard.failed) throw new Error(`The IVF index of store ${store} could not be read from its file (${shard.failed.message}).`);
    return shard;
  }

  private close(store: string): void {
    const shard = this.shards.get(store);
    if (!shard) return;
    shard.closed = true;
    shard.index.close();
    if (shard.timer) clearTimeout(shard.timer);
    this.shards.delete(store);
  }

  private markDirty(shard: IvfShard, generation: number): void {
    scheduleSave(shard, generation, this.enqueue, async () => save(shard));
  }
}

/** Writes the index, then its sidecar (a reader in between finds the new file under the old claim, never the reverse). */
function save(shard: IvfShard): void {
  if (shard.timer) clearTimeout(shard.timer);
  shard.timer = undefined;
  if (!shard.dirty || shard.closed || shard.failed || shard.generation < 0) return;
  shard.dirty = false;
  const { index } = shard;
  const sidecar: IvfSidecar = {
    generation: shard.generation,
    dimensions: shard.dimensions,
    embedderId: shard.embedderId,
    lists: index.lists,
    nprobe: index.nprobe,
    count: index.count,
  };
  index.save(shard.path);
  writeFileSync(`${shard.path}.json${TMP_SUFFIX}`, JSON.stringify(sidecar));
  renameSync(`${shard.path}.json${TMP_SUFFIX}`, `${shard.path}.json`);
}
