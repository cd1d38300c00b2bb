import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { WriteStep } from './chunk-writes';
import { type Applied, type BuildOptions, buildGraphs, catchUpGraphs, type GraphWork } from './graph-build';
import type { Entry, GraphParameters, GraphStoreMeta, ShardIndex, StoreGraphsOptions, StoreIndexKind } from './graph-entry';
import { HnswClient } from './hnsw-client';
import { IndexFiles } from './index-files';
import type { HnswRequest, HnswSearchResult } from './hnsw-protocol';
import { type IvfTarget, stopTraining } from './ivf-build';
import { startIvfRetrain } from './ivf-retrain';
import { estimateIvfBytes, type IvfSwitchHost, openIvfShards, startIvfSwitch } from './ivf-switch';

export type { GraphParameters, GraphStoreMeta, ShardIndex, StoreGraphsOptions, StoreIndexKind } from './graph-entry';

/**
 * Graphs per store: a store's chunks are split by id (`id % SHARDS`) into this many HNSW graphs, each held
 * by its own worker thread (as many as there are cores, up to this). Searches and inserts run on the
 * shards in parallel; each shard is half the size, and on clustered vectors the beam a graph needs for
 * a given recall grows faster than its size, so two half graphs also cost less CPU than one.
 */
export const SHARDS = 2;
/**
 * Default of `FATHOM_IVF_ABOVE_CHUNKS`: stores of more chunks are served by IVF indexes. Measured at 100k and 300k
 * chunks, the IVF took half to two thirds of the graphs' CPU per search for a higher recall, and a filter far from
 * the query cost it 1.8-4.4 ms of CPU against the graphs' 21-28 ms (docs/decisions/2026-11-26-ivf-above-50k.md).
 */
export const IVF_ABOVE_CHUNKS = 50_000;
/** HNSW inserts queued in the workers before `apply` waits (backpressure). */
const MAX_INFLIGHT_VECTORS = 4096;
/** A catch-up inserting more than this many vectors does not hold searches back (they use the graphs as they stand). */
const SEARCH_WAITS_FOR_AT_MOST = 5000;

/** Releases held graphs. */
export type GraphRelease = () => void;

/**
 * The HNSW graphs of the stores, held by worker threads. A store's graphs are loaded when first used: from
 * their files when current, brought up to date from the database when behind (saved before a crash, or
 * by another process), or rebuilt when there is no usable file — each time saying why. Graphs in memory
 * follow this process's writes; when another process wrote to the store, the next use brings them up to
 * date. Graphs beyond the memory budget that nobody holds are saved and unloaded, least recently used first.
 */
export class StoreGraphs {
  private readonly workers = Array.from({ length: Math.max(1, Math.min(SHARDS, availableParallelism())) }, () => new HnswClient());
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Set<{ size: number; done: Promise<void> }>();
  /** IVF builds under way (`close` waits for them to stop). */
  private readonly conversions = new Set<Promise<void>>();
  private closing = false;
  private readonly files: IndexFiles;
  private readonly switchHost: IvfSwitchHost = {
    options: () => this.options,
    conversions: this.conversions,
    closing: () => this.closing,
    entry: (storeId) => this.entries.get(storeId),
    buildOptions: (storeId, dimensions) => this.buildOptions(storeId, dimensions),
    targets: (storeId, kind) => this.targets(storeId, kind),
    track: (storeId, entry, work) => this.track(storeId, entry, work),
    removeGraphFiles: (storeId, shard) => this.files.remove(this.files.graph(storeId, shard)),
  };
  private inflightVectors = 0;

  constructor(private readonly options: StoreGraphsOptions) {
    mkdirSync(options.directory, { recursive: true });
    this.files = new IndexFiles(options.directory);
  }

  /** Whether the store's graphs are in memory (loaded or loading). */
  isOpen(storeId: string): boolean {
    return this.entries.has(storeId);
  }

  /** The parameters the store's graphs were built with (`Entry.built`); undefined before they are opened. */
  builtWith(storeId: string): GraphParameters | undefined {
    return this.entries.get(storeId)?.built;
  }

  /** How many stores have graphs in memory, and their estimated bytes. */
  inMemory(): { stores: number; bytes: number } {
    return { stores: this.entries.size, bytes: this.memoryBytes() };
  }

  /** What serves the store in this process (undefined before it is opened). */
  indexOf(storeId: string): StoreIndexKind | undefined {
    const entry = this.entries.get(storeId);
    if (!entry) return undefined;
    if (!entry.kinds.includes('hnsw')) return entry.building ? 'ivf-retraining' : 'ivf';
    // Shards switch one at a time: a store with an IVF and a graph is between two of them.
    return entry.building || entry.kinds.includes('ivf') ? 'ivf-building' : 'hnsw';
  }

  /**
   * Loads the store's graphs and keeps them in memory until the release is called; undefined when the store
   * has nothing indexed. `purpose`: a `write` waits until the graphs have everything (and are up to date
   * with the database); a `search` waits for what is quick and, with `fresh`, first brings graphs that
   * another process outdated up to date; `fresh: false` is for a search while this process writes the store.
   */
  async hold(storeId: string, purpose: 'search' | 'write', fresh = true): Promise<GraphRelease | undefined> {
    if (this.workers.some((worker) => worker.crashed)) this.entries.clear();
    const meta = this.options.meta(storeId);
    let entry = this.entries.get(storeId);
    if (!meta) {
      if (entry && entry.holds === 0 && !entry.working) await this.unload(storeId);
      return undefined;
    }
    if (entry && (entry.embedderId !== meta.embedder_id || entry.dimensions !== meta.dimensions) && entry.holds === 0 && !entry.working) {
      await this.drop(storeId);
      entry = undefined;
    }
    entry ??= this.open(storeId, meta);
    entry.holds++;
    entry.lastUsed = performance.now();
    const held = entry;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.holds--;
      held.lastUsed = performance.now();
    };
    try {
      await (purpose === 'write' ? entry.settled : entry.searchable);
      if (fresh) await this.refresh(storeId, entry, purpose);
      this.convertIfLarge(storeId, entry, meta);
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Applies one write transaction of the store to its graphs: the deleted chunks marked deleted, the added
   * ones queued for insertion in their shards (workers apply requests in order, so a later search already
   * sees them); waits only when too many vectors are in flight. The graphs keep claiming the store's
   * generation only while they saw every transaction of it.
   */
  async apply(storeId: string, step: Pick<WriteStep, 'removed' | 'added' | 'before' | 'after'>, vectors?: Float32Array): Promise<void> {
    const generation = this.advance(storeId, step);
    const dimensions = vectors && step.added.length ? vectors.length / step.added.length : 0;
    const pending: Array<Promise<void>> = [];
    for (const target of this.targets(storeId)) {
      const removed = step.removed.filter((id) => id % SHARDS === target.shard);
      if (removed.length) pending.push(target.client.delete(target.key, removed, generation).then(() => undefined));
      const rows = step.added.flatMap((id, row) => (id % SHARDS === target.shard ? [row] : []));
      const flat = new Float32Array(vectors ? rows.length * dimensions : 0);
      if (vectors) rows.forEach((row, i) => flat.set(vectors.subarray(row * dimensions, (row + 1) * dimensions), i * dimensions));
      // Every shard gets the step (an empty one too): its claimed generation moves with the store's.
      const added = target.client.add(target.key, vectors ? rows.map((row) => step.added[row]!) : [], flat, generation);
      pending.push(
        added.then(
          ({ bytes }) => {
            const entry = this.entries.get(storeId);
            if (entry) entry.bytes[target.shard] = bytes;
          },
          async (error: Error) => {
            this.options.log.error(`HNSW update of ${storeId} failed (${error.message}); its index will be rebuilt from SQLite.`);
            await this.drop(storeId).catch(() => undefined);
          },
        ),
      );
    }
    const entry = { size: step.added.length, done: Promise.all(pending).then(() => undefined) };
    this.inflight.add(entry);
    this.inflightVectors += entry.size;
    void entry.done.then(() => {
      this.inflight.delete(entry);
      this.inflightVectors -= entry.size;
    });
    while (this.inflightVectors > MAX_INFLIGHT_VECTORS) await this.inflight.values().next().value!.done;
  }

  /**
   * Searches every shard of the store at once (posted synchronously, so callers can overlap the searches
   * with other work) and merges their answers: the `k` nearest, best first.
   */
  search(request: Omit<Extract<HnswRequest, { op: 'search' }>, 'op' | 'shard'>): Promise<HnswSearchResult> {
    const { store, vector, k, ef, allowed } = request;
    const kinds = this.entries.get(store)?.kinds;
    const answers = this.targets(store).map((target) =>
      // An IVF decides itself how to apply a filter (exactly over few allowed chunks, else in its lists): no beam, no budget.
      kinds?.[target.shard] === 'ivf'
        ? target.client.search({ store: target.key, vector, k, ef, ...(allowed ? { allowed, share: 1 / SHARDS } : {}) })
        : target.client.search({ ...request, store: target.key, shard: { index: target.shard, count: SHARDS } }),
    );
    return Promise.all(answers).then((results) => {
      const merged = results.flatMap((result) => result.labels.map((label, i) => ({ label, distance: result.distances[i]! })));
      merged.sort((a, b) => a.distance - b.distance);
      const top = merged.slice(0, request.k);
      const scanned = results.some((result) => result.scanned);
      return {
        labels: top.map((entry) => entry.label),
        distances: top.map((entry) => entry.distance),
        ...(scanned ? { scanned } : {}),
      };
    });
  }

  /**
   * Opens the stores' indexes ahead of their first search, in the order given, while their estimated memory
   * fits in the budget without unloading anything; answers how many were opened. An IVF answers as soon as it
   * is open and reads its lists in the background, so this costs a restart little and spares the first search
   * the opening (~0.5 s for a 1M store).
   */
  async preload(storeIds: string[]): Promise<number> {
    let opened = 0;
    for (const storeId of storeIds) {
      const meta = this.options.meta(storeId);
      if (this.closing || !meta || this.entries.has(storeId)) continue;
      if (this.memoryBytes() + estimateIvfBytes(meta) > this.options.memoryBudget) break;
      try {
        (await this.hold(storeId, 'search'))?.();
      } catch (error) {
        if (this.closing) break;
        throw error;
      }
      opened++;
    }
    return opened;
  }

  /** Forgets the store's graphs in the workers and deletes their files. */
  async drop(storeId: string): Promise<void> {
    this.entries.delete(storeId);
    const both = [...this.targets(storeId, 'hnsw'), ...this.targets(storeId, 'ivf')];
    await Promise.all(both.map((target) => target.client.drop(target.key)));
    for (let shard = 0; shard < SHARDS; shard++) {
      this.files.remove(this.files.graph(storeId, shard));
      this.files.remove(this.files.ivf(storeId, shard));
    }
    this.files.remove(this.files.legacy(storeId));
  }

  /** Saves every changed graph now (they are also saved a few seconds after changes). */
  async flush(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.flush()));
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight].map((entry) => entry.done));
    await Promise.allSettled([...this.entries.values()].map((entry) => entry.settled));
    this.closing = true;
    await stopTraining();
    await Promise.allSettled([...this.conversions]);
    await Promise.all(this.workers.map((worker) => worker.close()));
  }

  // ---- internals -------------------------------------------------------------------------------

  /** The store's shards in their workers: each under what serves it (`kind` given: all of that kind). */
  private targets(storeId: string, kind?: ShardIndex): IvfTarget[] {
    const kinds = this.entries.get(storeId)?.kinds;
    return Array.from({ length: SHARDS }, (_, shard) => {
      const ivf = (kind ?? kinds?.[shard]) === 'ivf';
      return {
        shard,
        client: this.workers[shard % this.workers.length]!,
        key: ivf ? `${storeId}#${shard}:ivf` : `${storeId}#${shard}`,
        path: ivf ? this.files.ivf(storeId, shard) : this.files.graph(storeId, shard),
      };
    });
  }

  private memoryBytes(): number {
    let total = 0;
    for (const entry of this.entries.values()) for (const bytes of entry.bytes) total += bytes;
    return total;
  }

  private buildOptions(storeId: string, dimensions: number): BuildOptions {
    const { source, log, progressIntervalMs } = this.options;
    return { source, log, progressIntervalMs, storeId, dimensions, shards: SHARDS };
  }

  /**
   * The generation a write step lets the graphs claim: the one after the step when they were exactly at the
   * one before it; otherwise another process wrote in between, and they are marked unknown.
   */
  private advance(storeId: string, step: { before: number; after: number }): number {
    const entry = this.entries.get(storeId);
    if (!entry) return -1;
    entry.applied = entry.applied !== undefined && entry.applied === step.before ? step.after : undefined;
    return entry.applied ?? -1;
  }

  /**
   * Starts loading the store's indexes: per shard its IVF file when usable (then its graph files are deleted),
   * else its graph file when usable, else builds: IVFs straight away for a store above the IVF size with no
   * graph file, graphs otherwise.
   */
  private open(storeId: string, meta: GraphStoreMeta): Entry {
    const entry: Entry = {
      searchable: Promise.resolve(),
      settled: Promise.resolve(),
      working: true,
      applied: undefined,
      embedderId: meta.embedder_id,
      dimensions: meta.dimensions,
      bytes: new Array<number>(SHARDS).fill(0),
      lastUsed: performance.now(),
      holds: 0,
      kinds: new Array<ShardIndex>(SHARDS).fill('hnsw'),
      building: false,
    };
    this.entries.set(storeId, entry);
    const parameters = this.options.parameters(meta.chunk_count);
    const perShard = Math.ceil(meta.chunk_count / SHARDS);
    const large = meta.chunk_count > this.options.ivfAboveChunks;
    this.track(storeId, entry, async (): Promise<GraphWork> => {
      await this.makeRoom(storeId, large ? estimateIvfBytes(meta) : estimateBytes(meta, parameters));
      const { dimensions, embedder_id: embedderId, generation } = meta;
      const common = this.buildOptions(storeId, dimensions);
      const { behind, fileGenerations, straight } = await openIvfShards(this.switchHost, storeId, entry, meta);
      if (straight) return straight;
      const graphs = this.targets(storeId).filter((target) => entry.kinds[target.shard] === 'hnsw');
      let built: Applied = generation;
      if (graphs.length) {
        const opened = await Promise.all(
          graphs.map((target) =>
            target.client.open({
              store: target.key,
              path: target.path,
              dimensions,
              embedderId,
              generation,
              capacity: perShard + Math.max(512, Math.ceil(perShard / 8)),
              ...parameters,
              keepBuilt: this.options.keepBuilt,
            }),
          ),
        );
        opened.forEach((result, i) => (entry.bytes[graphs[i]!.shard] = result.bytes));
        const { m, efConstruction } = opened.reduce((least, result) => (result.efConstruction < least.efConstruction ? result : least));
        entry.built = { m, efConstruction };
        const empty = graphs.filter((_, i) => opened[i]!.state === 'empty');
        graphs.forEach((target, i) => {
          if (opened[i]!.state !== 'behind') return;
          behind.push(target);
          fileGenerations[target.shard] = opened[i]!.fileGeneration;
        });
        if (empty.length) {
          const legacy = existsSync(this.files.legacy(storeId));
          const reason = legacy
            ? 'its HNSW file is of an earlier version (one graph per store; now one per shard)'
            : opened[graphs.indexOf(empty[0]!)]!.reason!;
          // Nothing is searchable before the missing graphs are built.
          built = await buildGraphs({ ...common, targets: empty, generation, chunks: meta.chunk_count, reason });
          if (legacy) this.files.remove(this.files.legacy(storeId));
        }
      }
      if (behind.length === 0) return { adding: 0, done: Promise.resolve(built) };
      const catchUp = await catchUpGraphs({
        ...common,
        targets: behind,
        kind: behind.every((target) => entry.kinds[target.shard] === 'ivf') ? 'IVF' : 'HNSW',
        reason: `its files are at generation ${behind.map((target) => fileGenerations[target.shard]).join(' and ')}, the database at ${generation}: written since by this or another process`,
      });
      // Graphs built while the store changed are exact for no generation: the next use catches them up.
      return { adding: catchUp.adding, done: catchUp.done.then((applied) => (built === undefined ? undefined : applied)) };
    });
    return entry;
  }

  /**
   * Starts the IVF build and switch of a store above the IVF size still on graphs (`ivf-switch.ts`), or the
   * retrain of an IVF whose store has outgrown its lists (`ivf-retrain.ts`).
   */
  private convertIfLarge(storeId: string, entry: Entry, meta: GraphStoreMeta): void {
    startIvfSwitch(this.switchHost, storeId, entry, meta);
    startIvfRetrain(this.switchHost, storeId, entry, meta);
  }

  /**
   * Runs a load or catch-up of the entry: searches wait until it answers (the difference is known and
   * quick to apply, or applied), writes until everything is inserted; then the graphs reflect the
   * generation it answers. A failure forgets the entry (the next use starts again).
   */
  private track(storeId: string, entry: Entry, work: () => Promise<GraphWork>): void {
    entry.working = true;
    const started = work();
    const settled = started
      .then((job) => job.done)
      .then((applied) => {
        entry.applied = applied;
      })
      .finally(() => {
        if (entry.settled === settled) entry.working = false;
      });
    entry.settled = settled;
    entry.searchable = started.then((job) => (job.adding <= SEARCH_WAITS_FOR_AT_MOST ? settled : undefined));
    entry.searchable.catch(() => undefined);
    settled.catch(() => {
      if (this.entries.get(storeId) === entry) this.entries.delete(storeId);
    });
  }

  /** Brings graphs up to date when the database moved on without them (another process wrote). */
  private async refresh(storeId: string, entry: Entry, purpose: 'search' | 'write'): Promise<void> {
    while (entry.working) {
      // A search uses the graphs while a long catch-up goes on; a write waits for it.
      if (purpose === 'search') return;
      await entry.settled;
    }
    const meta = this.options.meta(storeId);
    if (!meta || entry.applied === meta.generation) return;
    const kind = entry.kinds.includes('hnsw') ? 'HNSW' : 'IVF';
    this.track(storeId, entry, () =>
      catchUpGraphs({ ...this.buildOptions(storeId, meta.dimensions), targets: this.targets(storeId), kind }),
    );
    await (purpose === 'write' ? entry.settled : entry.searchable);
  }

  /** Unloads least recently used graphs nobody holds until the budget has room for `needed` more bytes. */
  private async makeRoom(except: string, needed: number): Promise<void> {
    let total = this.memoryBytes();
    if (total + needed <= this.options.memoryBudget) return;
    const idle = [...this.entries]
      .filter(([storeId, entry]) => storeId !== except && entry.holds === 0 && !entry.working && !entry.building)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [storeId, entry] of idle) {
      if (total + needed <= this.options.memoryBudget) break;
      total -= entry.bytes.reduce((sum, bytes) => sum + bytes, 0);
      await this.unload(storeId);
    }
  }

  /** Saves (if changed) and frees an idle store's graphs; the next use loads them again. */
  private async unload(storeId: string): Promise<void> {
    this.entries.delete(storeId);
    await Promise.all(this.targets(storeId).map((target) => target.client.unload(target.key)));
  }
}

/** Memory a store's graphs will hold (bytes), estimated like the workers do. */
function estimateBytes(meta: GraphStoreMeta, parameters: GraphParameters): number {
  return (meta.chunk_count + 1024) * (meta.dimensions * 4 + parameters.m * 8 + 120) + SHARDS * 2_700_000;
}
