/**
 * Worker thread that owns every HNSW index (hnswlib-node blocks the thread it runs on). It applies
 * inserts and deletions in message order, answers searches, and saves dirty indexes a few seconds
 * after the last change (and on `flush`), writing `<store>.hnsw` then a `<store>.hnsw.json` sidecar
 * with the SQLite generation the file reflects; a mismatch on open means stale, so the main thread
 * rebuilds from SQLite.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import hnswlib from 'hnswlib-node';
import type { HnswRequest, HnswSidecar } from './hnsw-protocol';

const { HierarchicalNSW } = hnswlib;
type Index = InstanceType<typeof HierarchicalNSW>;

interface OpenStore {
  index: Index;
  path: string;
  dimensions: number;
  generation: number;
  dirty: boolean;
  timer?: NodeJS.Timeout;
  firstDirtyAt: number;
  /** Set by `drop`: a save queued before must not write the files back. */
  dropped?: boolean;
}

const SAVE_DELAY_MS = 3_000;
const SAVE_MAX_DELAY_MS = 30_000;
const stores = new Map<string, OpenStore>();

function readSidecar(path: string): HnswSidecar | null {
  try {
    return JSON.parse(readFileSync(`${path}.json`, 'utf8')) as HnswSidecar;
  } catch {
    return null;
  }
}

async function save(store: OpenStore): Promise<void> {
  if (store.timer) clearTimeout(store.timer);
  store.timer = undefined;
  if (!store.dirty || store.dropped) return;
  store.dirty = false;
  const generation = store.generation;
  await store.index.writeIndex(`${store.path}.tmp`);
  renameSync(`${store.path}.tmp`, store.path);
  writeFileSync(`${store.path}.json`, JSON.stringify({ generation, dimensions: store.dimensions } satisfies HnswSidecar));
}

function markDirty(store: OpenStore, generation: number): void {
  store.generation = generation;
  if (!store.dirty) store.firstDirtyAt = Date.now();
  store.dirty = true;
  if (store.timer) clearTimeout(store.timer);
  const delay = Math.max(0, Math.min(SAVE_DELAY_MS, store.firstDirtyAt + SAVE_MAX_DELAY_MS - Date.now()));
  // The timed save joins the request queue: it never overlaps a flush's save of the same files (both
  // write `<store>.hnsw.tmp`), and no insert changes the graph while it is being written.
  store.timer = setTimeout(() => {
    store.timer = undefined;
    enqueue(() => save(store).catch(() => void (store.dirty = true)));
  }, delay);
}

function storeOf(name: string): OpenStore {
  const store = stores.get(name);
  if (!store) throw new Error(`HNSW index of store ${name} is not open.`);
  return store;
}

async function handle(request: HnswRequest): Promise<unknown> {
  switch (request.op) {
    case 'open': {
      const existing = stores.get(request.store);
      if (existing) return { loaded: true, count: existing.index.getCurrentCount() };
      const index = new HierarchicalNSW('cosine', request.dimensions);
      const sidecar = existsSync(request.path) ? readSidecar(request.path) : null;
      let loaded = false;
      if (sidecar && sidecar.generation === request.generation && sidecar.dimensions === request.dimensions) {
        try {
          index.readIndexSync(request.path);
          loaded = true;
        } catch {
          loaded = false;
        }
      }
      const store: OpenStore = {
        index,
        path: request.path,
        dimensions: request.dimensions,
        generation: request.generation,
        dirty: false,
        firstDirtyAt: 0,
      };
      if (!loaded) {
        index.initIndex({
          maxElements: Math.max(1024, request.capacity),
          m: request.m,
          efConstruction: request.efConstruction,
          randomSeed: 100,
        });
        rmSync(`${request.path}.json`, { force: true });
      }
      stores.set(request.store, store);
      return { loaded, count: index.getCurrentCount() };
    }
    case 'add': {
      const store = storeOf(request.store);
      const { index, dimensions } = store;
      const needed = index.getCurrentCount() + request.labels.length;
      if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, index.getMaxElements() * 2));
      request.labels.forEach((label, row) => {
        index.addPoint(Array.from(request.vectors.subarray(row * dimensions, (row + 1) * dimensions)), label);
      });
      markDirty(store, request.generation);
      return undefined;
    }
    case 'delete': {
      const store = storeOf(request.store);
      for (const label of request.labels) {
        try {
          store.index.markDelete(label);
        } catch {
          // Already deleted or never inserted: nothing to do.
        }
      }
      markDirty(store, request.generation);
      return undefined;
    }
    case 'search': {
      const { index } = storeOf(request.store);
      if (request.k <= 0 || index.getCurrentCount() === 0) return { labels: [], distances: [] };
      index.setEf(Math.max(request.ef, request.k));
      const result = index.searchKnn(Array.from(request.vector), Math.min(request.k, index.getCurrentCount()));
      return { labels: result.neighbors, distances: result.distances };
    }
    case 'drop': {
      const store = stores.get(request.store);
      if (store?.timer) clearTimeout(store.timer);
      if (store) store.dropped = true;
      stores.delete(request.store);
      return undefined;
    }
    case 'flush': {
      for (const store of stores.values()) await save(store);
      return undefined;
    }
  }
}

// Requests (and timed saves) run strictly in arrival order: an insert is applied before a later search sees the index.
let queue: Promise<void> = Promise.resolve();
function enqueue(task: () => Promise<void>): void {
  queue = queue.then(task);
}
parentPort!.on('message', (message: { id: number; request: HnswRequest }) => {
  enqueue(async () => {
    try {
      const result = await handle(message.request);
      parentPort!.postMessage({ id: message.id, ok: true, result });
    } catch (error) {
      parentPort!.postMessage({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
