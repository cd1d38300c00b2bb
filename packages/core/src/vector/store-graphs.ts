import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../internal/logger';
import { type Applied, buildGraph, catchUpGraph, type GraphSource } from './graph-build';
import { HnswClient } from './hnsw-client';
import type { HnswRequest, HnswSearchResult } from './hnsw-protocol';
import type { WriteStep } from './chunk-writes';

/** HNSW inserts queued in the worker before `add` waits (backpressure). */
const MAX_INFLIGHT_VECTORS = 4096;
/** A catch-up inserting more than this many vectors does not hold searches back (they use the graph as it stands). */
const SEARCH_WAITS_FOR_AT_MOST = 5000;

/** Graph degree and build-time beam. */
export interface GraphParameters {
  m: number;
  efConstruction: number;
}

/** What the graphs need to know of a store (its row in `vector_index_meta`). */
export interface GraphStoreMeta {
  dimensions: number;
  generation: number;
  chunk_count: number;
  embedder_id: string;
}

export interface StoreGraphsOptions {
  /** Index files live here (`<store>.hnsw` + `<store>.hnsw.json`). */
  directory: string;
  /** The parameters of a new graph for a store of `chunks` chunks. */
  parameters(chunks: number): GraphParameters;
  /** Bytes of graphs kept in memory: beyond it, the least recently used graphs nobody is using are saved and unloaded. */
  memoryBudget: number;
  /** How often a long build or catch-up logs its progress (ms). */
  progressIntervalMs: number;
  log: Logger;
  /** The store's state in the database (undefined = nothing indexed). */
  meta(storeId: string): GraphStoreMeta | undefined;
  source: GraphSource;
}

interface Entry {
  /** Searches may use the graph (it is open in the worker, and any quick catch-up is done). */
  searchable: Promise<void>;
  /** No build or catch-up is going on (writes wait for this). */
  settled: Promise<void>;
  /** A build or catch-up is going on. */
  working: boolean;
  /** The database generation the graph reflects exactly; undefined when unknown (brought up to date on next use). */
  applied: Applied;
  embedderId: string;
  dimensions: number;
  bytes: number;
  lastUsed: number;
  holds: number;
}

/** Releases a held graph. */
export type GraphRelease = () => void;

/**
 * The HNSW graphs of the stores, held by one worker thread. A store's graph is loaded when first used: from
 * its file when the file is current, brought up to date from the database when the file is behind (saved
 * before a crash, or by another process), or rebuilt when there is no usable file — each time saying why.
 * A graph in memory follows this process's writes; when another process wrote to the store, the next use
 * brings it up to date. Graphs beyond the memory budget that nobody holds are saved and unloaded, least
 * recently used first.
 */
export class StoreGraphs {
  private readonly hnsw = new HnswClient();
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Set<{ size: number; done: Promise<void> }>();
  private inflightVectors = 0;

  constructor(private readonly options: StoreGraphsOptions) {
    mkdirSync(options.directory, { recursive: true });
  }

  /** Whether the store's graph is in memory (loaded or loading). */
  isOpen(storeId: string): boolean {
    return this.entries.has(storeId);
  }

  /** Bytes of the graphs in memory (estimated from their capacity). */
  get memoryBytes(): number {
    let total = 0;
    for (const entry of this.entries.values()) total += entry.bytes;
    return total;
  }

  /** How many graphs are in memory, and their estimated bytes. */
  inMemory(): { stores: number; bytes: number } {
    return { stores: this.entries.size, bytes: this.memoryBytes };
  }

  /**
   * Loads the store's graph and keeps it in memory until the release is called; undefined when the store
   * has nothing indexed. `purpose`: a `write` waits until the graph has everything (and is up to date with
   * the database); a `search` waits for what is quick and, with `fresh`, first brings a graph that another
   * process outdated up to date; `fresh: false` is for a search while this process is writing the store.
   */
  async hold(storeId: string, purpose: 'search' | 'write', fresh = true): Promise<GraphRelease | undefined> {
    if (this.hnsw.crashed) this.entries.clear();
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
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }

  /**
   * Applies one write transaction of the store to its graph: the deleted chunks marked deleted, the added
   * ones queued for insertion (the worker applies requests in order, so a later search already sees
   * them); waits only when too many vectors are in flight. The graph keeps claiming the store's generation
   * only while it saw every transaction of it.
   */
  async apply(storeId: string, step: Pick<WriteStep, 'removed' | 'added' | 'before' | 'after'>, vectors?: Float32Array): Promise<void> {
    const generation = this.advance(storeId, step);
    if (step.removed.length || !step.added.length) await this.hnsw.delete(storeId, step.removed, generation);
    if (!step.added.length || !vectors) return;
    const entry = {
      size: step.added.length,
      done: this.hnsw.add(storeId, step.added, vectors, generation).then(
        ({ bytes }) => {
          const held = this.entries.get(storeId);
          if (held) held.bytes = bytes;
        },
        async (error: Error) => {
          this.options.log.error(`HNSW update of ${storeId} failed (${error.message}); its index will be rebuilt from SQLite.`);
          await this.drop(storeId).catch(() => undefined);
        },
      ),
    };
    this.inflight.add(entry);
    this.inflightVectors += entry.size;
    void entry.done.then(() => {
      this.inflight.delete(entry);
      this.inflightVectors -= entry.size;
    });
    while (this.inflightVectors > MAX_INFLIGHT_VECTORS) await this.inflight.values().next().value!.done;
  }

  /** Posts the search at once (synchronously), so callers can overlap it with other work. */
  search(request: Omit<Extract<HnswRequest, { op: 'search' }>, 'op'>): Promise<HnswSearchResult> {
    return this.hnsw.search(request);
  }

  /** Forgets the store's graph in the worker and deletes its files. */
  async drop(storeId: string): Promise<void> {
    this.entries.delete(storeId);
    await this.hnsw.drop(storeId);
    const path = this.pathOf(storeId);
    for (const file of [path, `${path}.json`]) rmSync(file, { force: true });
  }

  /** Saves every changed graph now (they are also saved a few seconds after changes). */
  flush(): Promise<void> {
    return this.hnsw.flush();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inflight].map((entry) => entry.done));
    await Promise.allSettled([...this.entries.values()].map((entry) => entry.settled));
    await this.hnsw.close();
  }

  private pathOf(storeId: string): string {
    return join(this.options.directory, `${storeId.replace(/[^\w.-]/g, '_')}.hnsw`);
  }

  /**
   * The generation a write step lets the graph claim: the one after the step when the graph was exactly
   * at the one before it; otherwise another process wrote in between, and the graph is marked unknown.
   */
  private advance(storeId: string, step: { before: number; after: number }): number {
    const entry = this.entries.get(storeId);
    if (!entry) return -1;
    entry.applied = entry.applied !== undefined && entry.applied === step.before ? step.after : undefined;
    return entry.applied ?? -1;
  }

  /** Starts loading the store's graph: its file when usable, else a build from the database. */
  private open(storeId: string, meta: GraphStoreMeta): Entry {
    const entry: Entry = {
      searchable: Promise.resolve(),
      settled: Promise.resolve(),
      working: true,
      applied: undefined,
      embedderId: meta.embedder_id,
      dimensions: meta.dimensions,
      bytes: 0,
      lastUsed: performance.now(),
      holds: 0,
    };
    this.entries.set(storeId, entry);
    const parameters = this.options.parameters(meta.chunk_count);
    this.track(storeId, entry, async () => {
      await this.makeRoom(storeId, estimateBytes(meta, parameters));
      const opened = await this.hnsw.open({
        store: storeId,
        path: this.pathOf(storeId),
        dimensions: meta.dimensions,
        embedderId: meta.embedder_id,
        generation: meta.generation,
        capacity: meta.chunk_count + Math.max(1024, Math.ceil(meta.chunk_count / 8)),
        ...parameters,
      });
      entry.bytes = opened.bytes;
      if (opened.state === 'current') return { adding: 0, done: Promise.resolve(meta.generation) };
      const common = this.buildOptions(storeId, meta.dimensions);
      if (opened.state === 'empty') {
        const done = buildGraph({ ...common, generation: meta.generation, chunks: meta.chunk_count, reason: opened.reason! });
        // Nothing is searchable before the graph is built.
        await done;
        return { adding: 0, done };
      }
      return catchUpGraph({
        ...common,
        reason: `its file is at generation ${opened.fileGeneration}, the database at ${meta.generation}: written since by this or another process`,
      });
    });
    return entry;
  }

  /**
   * Runs a load or catch-up of the entry: searches wait until it answers (the difference is known and
   * quick to apply, or applied), writes until everything is inserted; then the graph reflects the
   * generation it answers. A failure forgets the entry (the next use starts again).
   */
  private track(storeId: string, entry: Entry, work: () => Promise<{ adding: number; done: Promise<Applied> }>): void {
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
    settled.catch(() => {
      if (this.entries.get(storeId) === entry) this.entries.delete(storeId);
    });
  }

  /** Brings a graph up to date when the database moved on without it (another process wrote). */
  private async refresh(storeId: string, entry: Entry, purpose: 'search' | 'write'): Promise<void> {
    while (entry.working) {
      // A search uses the graph while a long catch-up goes on; a write waits for it.
      if (purpose === 'search') return;
      await entry.settled;
    }
    const meta = this.options.meta(storeId);
    if (!meta || entry.applied === meta.generation) return;
    this.track(storeId, entry, () => catchUpGraph(this.buildOptions(storeId, meta.dimensions)));
    await (purpose === 'write' ? entry.settled : entry.searchable);
  }

  private buildOptions(storeId: string, dimensions: number) {
    const { source, log, progressIntervalMs } = this.options;
    return { hnsw: this.hnsw, source, log, progressIntervalMs, storeId, dimensions };
  }

  /** Unloads least recently used graphs nobody holds until the budget has room for `needed` more bytes. */
  private async makeRoom(except: string, needed: number): Promise<void> {
    let total = this.memoryBytes;
    if (total + needed <= this.options.memoryBudget) return;
    const idle = [...this.entries]
      .filter(([storeId, entry]) => storeId !== except && entry.holds === 0 && !entry.working)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [storeId, entry] of idle) {
      if (total + needed <= this.options.memoryBudget) break;
      total -= entry.bytes;
      await this.unload(storeId);
    }
  }

  /** Saves (if changed) and frees an idle graph; the next use loads it again. */
  private unload(storeId: string): Promise<void> {
    this.entries.delete(storeId);
    return this.hnsw.unload(storeId);
  }
}

/** Memory a graph of the store will hold (bytes), estimated like the worker does. */
function estimateBytes(meta: GraphStoreMeta, parameters: GraphParameters): number {
  return (meta.chunk_count + 1024) * (meta.dimensions * 4 + parameters.m * 8 + 120) + 2_700_000;
}
