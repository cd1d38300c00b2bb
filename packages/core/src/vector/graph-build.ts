import type { Logger } from '../internal/logger';
import type { HnswClient } from './hnsw-client';
import { blobToVector } from './vector-blob';

/** Vectors read from the database per batch when graphs are built or brought up to date. */
export const BATCH = 1000;
/** By default a build or catch-up longer than this logs its progress, at most this often. */
export const PROGRESS_INTERVAL_MS = 10_000;

/** Where a graph's vectors come from: the database. */
export interface GraphSource {
  /** The store's generation now (undefined when the store has no index). */
  generation(storeId: string): number | undefined;
  /** Every chunk id of the store, and the store's generation read just before and after them (equal: consistent). */
  ids(storeId: string): { ids: Float64Array; before: number | undefined; after: number | undefined };
  /** The vectors of these chunk ids (rows deleted since are missing). */
  vectors(ids: number[]): Array<{ id: number; vector: Buffer }>;
}

/**
 * The vectors of the chunks `ids` (the store's, read once by the caller from its index, no row read) in the
 * shards of `targets`, a batch per call in id order (undefined at the end), by primary key. Reading "the next
 * rows after id x of the store" instead made SQLite sort the store's rows past x for every batch (0.9 s a
 * batch at 1M); chunks written after the ids were read are left to the caller's catch-up.
 */
export function vectorBatches(
  source: GraphSource,
  ids: Float64Array,
  targets: ShardTarget[],
  shards: number,
): () => Array<{ id: number; vector: Buffer }> | undefined {
  const wanted = ids.filter((id) => targets.some((target) => id % shards === target.shard)).sort();
  let at = 0;
  return () => {
    if (at >= wanted.length) return undefined;
    const batch = Array.from(wanted.subarray(at, at + BATCH));
    at += batch.length;
    return source.vectors(batch);
  };
}

/** One shard's graph in its worker. */
export interface ShardTarget {
  shard: number;
  client: HnswClient;
  /** The graph's name in the worker. */
  key: string;
}

/** What a build or catch-up left: the generation the graphs now reflect exactly, or undefined when unknown. */
export type Applied = number | undefined;

/** A build or catch-up under way: how many vectors it inserts, and when it is done (with what it left). */
export interface GraphWork {
  adding: number;
  done: Promise<Applied>;
}

export const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;

/** Logs "… n of total (p%), s left" at most every `intervalMs`, and the end when it took that long. */
export class Progress {
  private readonly started = performance.now();
  private logged = this.started;

  constructor(
    private readonly log: Logger,
    private readonly what: string,
    private readonly total: number,
    private readonly intervalMs: number,
  ) {}

  step(done: number): void {
    const now = performance.now();
    if (now - this.logged < this.intervalMs || done === 0) return;
    this.logged = now;
    const left = ((now - this.started) / done) * (this.total - done);
    this.log.info(
      `${this.what}: ${done.toLocaleString('en-US')} of ${this.total.toLocaleString('en-US')} vectors (${Math.floor((100 * done) / this.total)}%), about ${Math.ceil(left / 1000)} s left.`,
    );
  }

  end(done: number): void {
    const ms = performance.now() - this.started;
    if (done > 0 && ms >= this.intervalMs) this.log.info(`${this.what}: done, ${plural(done, 'vector')} in ${(ms / 1000).toFixed(0)} s.`);
  }
}

/**
 * Inserts rows into the shards they belong to (`id % shards`), batch by batch; each shard's worker has at
 * most two batches in flight, and the next batch is read while the workers insert.
 */
export async function insertAll(
  targets: ShardTarget[],
  shards: number,
  dimensions: number,
  /** The next rows to insert (possibly none), or undefined at the end. */
  next: () => Array<{ id: number; vector: Buffer }> | undefined,
  progress: Progress,
): Promise<number> {
  const byShard = new Map(targets.map((target) => [target.shard, target]));
  const previous = new Map<number, Promise<unknown>>();
  let done = 0;
  for (;;) {
    const rows = next();
    if (rows === undefined) break;
    const split = new Map<number, Array<{ id: number; vector: Buffer }>>();
    for (const row of rows) {
      const shard = row.id % shards;
      if (!byShard.has(shard)) continue;
      let list = split.get(shard);
      if (!list) split.set(shard, (list = []));
      list.push(row);
    }
    for (const [shard, shardRows] of split) {
      const target = byShard.get(shard)!;
      const flat = new Float32Array(shardRows.length * dimensions);
      shardRows.forEach((row, i) => flat.set(blobToVector(row.vector), i * dimensions));
      const adding = target.client.add(
        target.key,
        shardRows.map((row) => row.id),
        flat,
        -1,
      );
      adding.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled
      await previous.get(shard);
      previous.set(shard, adding);
      done += shardRows.length;
    }
    progress.step(done);
  }
  await Promise.all(previous.values());
  return done;
}

/** Claims `generation` for the graphs when the store did not change meanwhile (then they may be saved as current). */
async function claim(targets: ShardTarget[], source: GraphSource, storeId: string, generation: number | undefined): Promise<Applied> {
  if (generation === undefined || source.generation(storeId) !== generation) return undefined;
  await Promise.all(targets.map((target) => target.client.add(target.key, [], new Float32Array(0), generation)));
  return generation;
}

export interface BuildOptions {
  source: GraphSource;
  log: Logger;
  storeId: string;
  dimensions: number;
  shards: number;
  progressIntervalMs: number;
}

/**
 * Fills the empty graphs of `targets` with every vector of their shards, in id order, logging why and how far
 * it got. The graphs are claimed current only if the store did not change while they were built.
 */
export async function buildGraphs(
  options: BuildOptions & { targets: ShardTarget[]; generation: number; chunks: number; reason: string },
): Promise<Applied> {
  const { source, log, storeId, targets, shards } = options;
  const which = targets.length === shards ? '' : ` (${targets.map((target) => `shard ${target.shard + 1}`).join(', ')} of ${shards})`;
  const what = `Rebuilding the HNSW index of ${storeId}${which}`;
  const expected = Math.round((options.chunks * targets.length) / shards);
  if (expected > 0) log.info(`${what} from ${plural(expected, 'vector')} in SQLite: ${options.reason}.`);
  const progress = new Progress(log, what, expected, options.progressIntervalMs);
  const done = await insertAll(
    targets,
    shards,
    options.dimensions,
    vectorBatches(source, source.ids(storeId).ids, targets, shards),
    progress,
  );
  progress.end(done);
  return claim(targets, source, storeId, options.generation);
}

/**
 * With the store's writes held: catches `targets` up until they are exact for one generation (a write that
 * started before the hold may still land; a few tries at most). Answers that generation, or undefined.
 */
export async function catchUpExactly(options: BuildOptions & { targets: ShardTarget[]; kind: 'HNSW' | 'IVF' }): Promise<Applied> {
  let applied: Applied;
  for (let attempt = 0; attempt < 5 && applied === undefined; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    applied = await (await catchUpGraphs(options)).done;
  }
  return applied;
}

/**
 * Brings graphs that are behind the database up to date: the chunk ids of each shard against its graph's
 * labels, deleted rows marked deleted, missing rows inserted. Labels are chunk ids, never reused, and a
 * chunk's vector never changes under the same embedder, so any graph of the store's earlier states (a file
 * saved before a crash, or by another process; this process's graph after another one wrote) is made
 * exact this way, at the cost of the difference. Answers once the difference is known and the deletions
 * are applied; `done` follows the insertions.
 */
export async function catchUpGraphs(
  options: BuildOptions & { targets: ShardTarget[]; reason?: string; kind?: 'HNSW' | 'IVF' },
): Promise<GraphWork> {
  const { source, log, storeId, targets, shards } = options;
  const labels = await Promise.all(targets.map((target) => target.client.labels(target.key)));
  const read = source.ids(storeId);
  const ids = read.ids.sort();
  const adding: number[] = [];
  let removed = 0;
  for (const [t, target] of targets.entries()) {
    const own = labels[t]!.sort();
    const removing: number[] = [];
    let i = 0;
    let j = 0;
    while (i < ids.length || j < own.length) {
      if (i < ids.length && ids[i]! % shards !== target.shard) {
        i++;
        continue;
      }
      if (j >= own.length || (i < ids.length && ids[i]! < own[j]!)) adding.push(ids[i++]!);
      else if (i >= ids.length || own[j]! < ids[i]!) removing.push(own[j++]!);
      else {
        i++;
        j++;
      }
    }
    if (removing.length) removed += await target.client.delete(target.key, removing, -1);
  }
  adding.sort((a, b) => a - b);
  const what = `Updating the ${options.kind ?? 'HNSW'} index of ${storeId}`;
  if (options.reason || adding.length >= 10 * BATCH) {
    log.info(
      `${what}${options.reason ? ` (${options.reason})` : ''}: ${plural(adding.length, 'vector')} to add, ${removed.toLocaleString('en-US')} removed.`,
    );
  }
  const generation = read.before === read.after ? read.before : undefined;
  const progress = new Progress(log, what, adding.length, options.progressIntervalMs);
  let at = 0;
  const done = insertAll(
    targets,
    shards,
    options.dimensions,
    () => {
      const batch = adding.slice(at, at + BATCH);
      at += batch.length;
      return batch.length ? source.vectors(batch) : undefined;
    },
    progress,
  ).then((count) => {
    progress.end(count);
    return claim(targets, source, storeId, generation);
  });
  return { adding: adding.length, done };
}
