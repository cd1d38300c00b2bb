/**
 * Worker thread that owns every loaded HNSW graph (hnswlib-node blocks the thread it runs on). It applies
 * inserts and deletions in message order, answers searches, and saves dirty graphs a few seconds after
 * the last change (and on `flush` and `unload`), writing `<store>.hnsw` then a `<store>.hnsw.json` sidecar
 * with the database generation the file reflects. The main thread decides what a file is worth (see
 * `StoreGraphs`): this thread only reports what it found.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import hnswlib from 'hnswlib-node';
import type { HnswOpenResult, HnswRequest, HnswSidecar } from './hnsw-protocol';
import { scanAllowed } from './hnsw-scan';
import { inRanges } from './id-ranges';
import { markDirty as scheduleSave, readSidecar, type SavedIndex, TMP_SUFFIX } from './index-saves';
import { IvfShards } from './ivf-shards';

const { HierarchicalNSW } = hnswlib;
type Index = InstanceType<typeof HierarchicalNSW>;

interface OpenStore extends SavedIndex {
  index: Index;
  path: string;
  dimensions: number;
  embedderId: string;
  m: number;
  efConstruction: number;
  /** Set by `drop` and `unload`: a save queued before must not write the files back. */
  closed?: boolean;
}

/** hnswlib allocates 65,536 label locks (40 bytes each) per graph, whatever its size. */
const FIXED_BYTES = 65_536 * 40 + 64 * 1024;
const stores = new Map<string, OpenStore>();

/**
 * Memory a graph holds (bytes), from hnswlib's layout: per element of capacity, the level-0 record
 * (vector, 2M links, label), a lock, its level, a link-list pointer, a visited mark and the label map
 * entry; upper levels for about 1/M of the elements; and the fixed label locks.
 */
function graphBytes(store: OpenStore): number {
  const capacity = store.index.getMaxElements();
  const level0 = store.dimensions * 4 + store.m * 2 * 4 + 4 + 8;
  const upper = (store.m * 4 + 4) / store.m;
  return Math.round(capacity * (level0 + 40 + 4 + 8 + 2 + 48 + upper) + FIXED_BYTES);
}

async function save(store: OpenStore): Promise<void> {
  if (store.timer) clearTimeout(store.timer);
  store.timer = undefined;
  if (!store.dirty || store.closed || store.generation < 0) return;
  store.dirty = false;
  const sidecar: HnswSidecar = {
    generation: store.generation,
    dimensions: store.dimensions,
    embedderId: store.embedderId,
    m: store.m,
    efConstruction: store.efConstruction,
  };
  await store.index.writeIndex(`${store.path}${TMP_SUFFIX}`);
  // The graph first, then its claim: a reader in between finds the new graph under the old claim, which
  // at worst makes it compare the graph with the database (never a new claim over an old graph).
  renameSync(`${store.path}${TMP_SUFFIX}`, store.path);
  writeFileSync(`${store.path}.json${TMP_SUFFIX}`, JSON.stringify(sidecar));
  renameSync(`${store.path}.json${TMP_SUFFIX}`, `${store.path}.json`);
}

function markDirty(store: OpenStore, generation: number): void {
  scheduleSave(store, generation, enqueue, () => save(store));
}

function storeOf(name: string): OpenStore {
  const store = stores.get(name);
  if (!store) throw new Error(`HNSW index of store ${name} is not open.`);
  return store;
}

/** What `load` found; `built`: the parameters of the file it loaded. */
type Loaded = Omit<HnswOpenResult, 'count' | 'bytes' | 'm' | 'efConstruction'> & { built?: { m: number; efConstruction: number } };

/** Loads the file when it is usable; says why not otherwise. */
function load(request: Extract<HnswRequest, { op: 'open' }>, index: Index): Loaded {
  if (!existsSync(request.path)) return { state: 'empty', reason: 'it has no HNSW file yet' };
  const sidecar = readSidecar<HnswSidecar>(request.path);
  if (!sidecar) return { state: 'empty', reason: 'its HNSW file has no readable sidecar (a save was interrupted)' };
  if (sidecar.dimensions !== request.dimensions) {
    return { state: 'empty', reason: `its HNSW file holds ${sidecar.dimensions}-d vectors and the store ${request.dimensions}-d` };
  }
  if (sidecar.embedderId !== undefined && sidecar.embedderId !== request.embedderId) {
    return {
      state: 'empty',
      reason: `its HNSW file was built from vectors of '${sidecar.embedderId}', the store's are '${request.embedderId}'`,
    };
  }
  // Files of before the parameters were recorded were built with 16 and 100.
  const built = { m: sidecar.m ?? 16, efConstruction: sidecar.efConstruction ?? 100 };
  if (!request.keepBuilt && (built.m !== request.m || built.efConstruction !== request.efConstruction)) {
    return {
      state: 'empty',
      reason: `its HNSW file was built with M=${built.m}, efConstruction=${built.efConstruction}; the configuration asks for M=${request.m}, efConstruction=${request.efConstruction}`,
    };
  }
  try {
    index.readIndexSync(request.path);
  } catch (error) {
    return { state: 'empty', reason: `its HNSW file could not be read (${(error as Error).message})` };
  }
  if (sidecar.generation === request.generation) return { state: 'current', built };
  return { state: 'behind', fileGeneration: sidecar.generation, built };
}

async function handle(request: HnswRequest): Promise<unknown> {
  // A shard served by an IVF (issue 24: large stores), or one being opened or created as such.
  if (
    request.op === 'open-ivf' ||
    request.op === 'create-ivf' ||
    request.op === 'replace-ivf' ||
    (request.op !== 'flush' && ivfs.has(request.store))
  ) {
    return ivfs.handle(request);
  }
  switch (request.op) {
    case 'open': {
      const previous = stores.get(request.store);
      if (previous) {
        previous.closed = true;
        if (previous.timer) clearTimeout(previous.timer);
      }
      const index = new HierarchicalNSW('cosine', request.dimensions);
      // A loaded file keeps the parameters it was built with (hnswlib reads them from the file).
      const { built = { m: request.m, efConstruction: request.efConstruction }, ...found } = load(request, index);
      if (found.state === 'empty') {
        index.initIndex({
          maxElements: Math.max(64, request.capacity),
          m: request.m,
          efConstruction: request.efConstruction,
          randomSeed: 100,
        });
      } else if (index.getMaxElements() < request.capacity) {
        index.resizeIndex(request.capacity);
      }
      const store: OpenStore = {
        index,
        path: request.path,
        dimensions: request.dimensions,
        embedderId: request.embedderId,
        m: built.m,
        efConstruction: built.efConstruction,
        generation: found.state === 'current' ? request.generation : -1,
        dirty: false,
        firstDirtyAt: 0,
      };
      stores.set(request.store, store);
      return {
        ...found,
        count: index.getCurrentCount(),
        bytes: graphBytes(store),
        m: built.m,
        efConstruction: built.efConstruction,
      } satisfies HnswOpenResult;
    }
    case 'add': {
      const store = storeOf(request.store);
      const { index, dimensions } = store;
      const needed = index.getCurrentCount() + request.labels.length;
      if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, Math.ceil(index.getMaxElements() * 1.5)));
      request.labels.forEach((label, row) => {
        index.addPoint(Array.from(request.vectors.subarray(row * dimensions, (row + 1) * dimensions)), label);
      });
      markDirty(store, request.generation);
      return { bytes: graphBytes(store) };
    }
    case 'delete': {
      const store = storeOf(request.store);
      let deleted = 0;
      for (const label of request.labels) {
        try {
          store.index.markDelete(label);
          deleted++;
        } catch {
          // Already deleted or never inserted: nothing to do.
        }
      }
      markDirty(store, request.generation);
      return deleted;
    }
    case 'search': {
      const { index } = storeOf(request.store);
      const count = index.getCurrentCount();
      if (request.k <= 0 || count === 0) return { labels: [], distances: [] };
      index.setEf(Math.max(request.ef, request.k));
      const { allowed } = request;
      const query = Array.from(request.vector);
      if (!allowed) {
        const result = index.searchKnn(query, Math.min(request.k, count));
        return { labels: result.neighbors, distances: result.distances };
      }
      if (request.filterIn === 'graph') {
        const budget = request.visitBudget ?? Number.POSITIVE_INFINITY;
        let judged = 0;
        const wanted = Math.min(request.k, count);
        // Past the budget every label passes: the walk fills its beam where it is and ends.
        const result = index.searchKnn(query, wanted, (label) => ++judged > budget || inRanges(allowed, label));
        if (judged <= budget) return { labels: result.neighbors, distances: result.distances };
        const labels: number[] = [];
        const distances: number[] = [];
        result.neighbors.forEach((label, i) => {
          if (!inRanges(allowed, label)) return;
          labels.push(label);
          distances.push(result.distances[i]!);
        });
        if (labels.length === wanted || !request.database || !request.shard) return { labels, distances };
        // The walk gave up short of `wanted`: this shard's allowed chunks, scanned exactly (its partial answer dropped).
        const scan = { database: request.database, shard: request.shard };
        return { ...scanAllowed(scan, request.vector, allowed, wanted), scanned: true };
      }
      // The whole beam, then the labels the filter allows, best first (hnswlib's filter callback costs
      // about 1 µs per visited candidate and makes the search visit ~7x more of them at 1/7 selectivity).
      const result = index.searchKnn(query, Math.min(Math.max(request.ef, request.k), count));
      const labels: number[] = [];
      const distances: number[] = [];
      for (let i = 0; i < result.neighbors.length && labels.length < request.k; i++) {
        if (!inRanges(allowed, result.neighbors[i]!)) continue;
        labels.push(result.neighbors[i]!);
        distances.push(result.distances[i]!);
      }
      return { labels, distances };
    }
    case 'labels': {
      const labels = Float64Array.from(storeOf(request.store).index.getIdsList());
      return labels;
    }
    case 'unload': {
      const store = stores.get(request.store);
      if (!store) return undefined;
      await save(store);
      store.closed = true;
      stores.delete(request.store);
      // Frees the graph now instead of whenever the garbage collector finalises the wrapper.
      store.index.initIndex({ maxElements: 1, m: 2 });
      return undefined;
    }
    case 'drop': {
      const store = stores.get(request.store);
      if (!store) return undefined;
      if (store.timer) clearTimeout(store.timer);
      store.closed = true;
      stores.delete(request.store);
      // As for `unload`: an IVF switch drops a 1M store's graphs one shard at a time, and a graph left to the
      // garbage collector kept its ~850 MB until a restart (hnswlib's memory is invisible to it).
      store.index.initIndex({ maxElements: 1, m: 2 });
      return undefined;
    }
    case 'flush': {
      for (const store of stores.values()) await save(store);
      ivfs.flush();
      return undefined;
    }
    default:
      throw new Error(`Unknown request '${(request as { op: string }).op}'.`);
  }
}

// Requests (and timed saves) run strictly in arrival order: an insert is applied before a later search sees the index.
let queue: Promise<void> = Promise.resolve();
function enqueue(task: () => Promise<void>): void {
  queue = queue.then(task);
}
const ivfs = new IvfShards(enqueue);
parentPort!.on('message', (message: { id: number; request: HnswRequest }) => {
  enqueue(async () => {
    try {
      const result = await handle(message.request);
      const transfer = result instanceof Float64Array ? [result.buffer as ArrayBuffer] : [];
      parentPort!.postMessage({ id: message.id, ok: true, result }, transfer);
    } catch (error) {
      parentPort!.postMessage({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
