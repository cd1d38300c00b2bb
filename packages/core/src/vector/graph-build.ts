import type { Logger } from '../internal/logger';
import type { HnswClient } from './hnsw-client';
import { blobToVector } from './vector-blob';

/** Vectors handed to the worker per message when a graph is built or brought up to date. */
const BATCH = 1000;
/** By default a build or catch-up longer than this logs its progress, at most this often. */
export const PROGRESS_INTERVAL_MS = 10_000;

/** Where a graph's vectors come from: the database. */
export interface GraphSource {
  /** The store's generation now (undefined when the store has no index). */
  generation(storeId: string): number | undefined;
  /** Vectors of the store in id order, after `afterId`. */
  vectorsAfter(storeId: string, afterId: number, limit: number): Array<{ id: number; vector: Buffer }>;
  /** Every chunk id of the store, and the store's generation read just before and after them (equal: consistent). */
  ids(storeId: string): { ids: Float64Array; before: number | undefined; after: number | undefined };
  /** The vectors of these chunk ids (rows deleted since are missing). */
  vectors(ids: number[]): Array<{ id: number; vector: Buffer }>;
}

/** What a build or catch-up left: the generation the graph now reflects exactly, or undefined when unknown. */
export type Applied = number | undefined;

/** Logs "… n of total (p%), s left" at most every 10 s, and the end when it took long. */
class Progress {
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

  /** Logs the end when the work took long enough to report progress. */
  end(done: number): void {
    const ms = performance.now() - this.started;
    if (ms >= this.intervalMs) this.log.info(`${this.what}: done, ${done.toLocaleString('en-US')} vectors in ${(ms / 1000).toFixed(0)} s.`);
  }
}

const plural = (count: number, word: string) => `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;

/** Posts the vectors in batches, at most two in flight (the next batch is read while the worker inserts). */
async function insertAll(
  hnsw: HnswClient,
  storeId: string,
  dimensions: number,
  /** The next rows to insert (possibly none), or undefined at the end. */
  next: () => Array<{ id: number; vector: Buffer }> | undefined,
  progress: Progress,
): Promise<number> {
  let done = 0;
  let previous: Promise<unknown> = Promise.resolve();
  for (;;) {
    const rows = next();
    if (rows === undefined) break;
    if (rows.length === 0) continue;
    const flat = new Float32Array(rows.length * dimensions);
    rows.forEach((row, i) => flat.set(blobToVector(row.vector), i * dimensions));
    const adding = hnsw.add(
      storeId,
      rows.map((row) => row.id),
      flat,
      -1,
    );
    adding.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled
    await previous;
    previous = adding;
    done += rows.length;
    progress.step(done);
  }
  await previous;
  return done;
}

/** Claims `generation` for the graph when the store did not change meanwhile (then the graph may be saved as current). */
async function claim(hnsw: HnswClient, source: GraphSource, storeId: string, generation: number | undefined): Promise<Applied> {
  if (generation === undefined || source.generation(storeId) !== generation) return undefined;
  await hnsw.add(storeId, [], new Float32Array(0), generation);
  return generation;
}

/**
 * Fills the empty graph the worker opened with every vector of the store, in id order, logging why and
 * how far it got. The graph is claimed current only if the store did not change while it was built.
 */
export async function buildGraph(options: {
  hnsw: HnswClient;
  source: GraphSource;
  log: Logger;
  storeId: string;
  dimensions: number;
  generation: number;
  chunks: number;
  /** Why there is no usable file (logged when there is something to build). */
  reason: string;
  progressIntervalMs: number;
}): Promise<Applied> {
  const { hnsw, source, log, storeId, chunks } = options;
  const what = `Rebuilding the HNSW index of ${storeId}`;
  if (chunks > 0) log.info(`${what} from ${chunks.toLocaleString('en-US')} vectors in SQLite: ${options.reason}.`);
  const progress = new Progress(log, what, chunks, options.progressIntervalMs);
  let after = 0;
  const done = await insertAll(
    hnsw,
    storeId,
    options.dimensions,
    () => {
      const rows = source.vectorsAfter(storeId, after, BATCH);
      if (rows.length === 0) return undefined;
      after = rows.at(-1)!.id;
      return rows;
    },
    progress,
  );
  if (done > 0) progress.end(done);
  return claim(hnsw, source, storeId, options.generation);
}

/** What a catch-up found: how many vectors it inserts, and the insertion still going on. */
export interface CatchUp {
  adding: number;
  removed: number;
  /** Resolves when every missing vector is in the graph, with the generation it then reflects. */
  done: Promise<Applied>;
}

/**
 * Brings a graph that is behind the database up to date: the chunk ids of the store against the graph's
 * labels, deleted rows marked deleted, missing rows inserted. Labels are chunk ids, never reused, and a
 * chunk's vector never changes under the same embedder, so any graph of the store's earlier states (a file
 * saved before a crash, or by another process; this process's graph after another one wrote) is made
 * exact this way, at the cost of the difference. Answers once the difference is known and the deletions
 * are applied; `done` follows the insertions.
 */
export async function catchUpGraph(options: {
  hnsw: HnswClient;
  source: GraphSource;
  log: Logger;
  storeId: string;
  dimensions: number;
  /** Logged with the difference when the catch-up has something to do (else only large ones are logged). */
  reason?: string;
  progressIntervalMs: number;
}): Promise<CatchUp> {
  const { hnsw, source, log, storeId } = options;
  const labels = (await hnsw.labels(storeId)).sort();
  const read = source.ids(storeId);
  const ids = read.ids.sort();
  const adding: number[] = [];
  const removing: number[] = [];
  let i = 0;
  let j = 0;
  while (i < ids.length || j < labels.length) {
    if (j >= labels.length || (i < ids.length && ids[i]! < labels[j]!)) adding.push(ids[i++]!);
    else if (i >= ids.length || labels[j]! < ids[i]!) removing.push(labels[j++]!);
    else {
      i++;
      j++;
    }
  }
  const removed = removing.length ? await hnsw.delete(storeId, removing, -1) : 0;
  const what = `Updating the HNSW index of ${storeId}`;
  if (options.reason || adding.length >= 10 * BATCH) {
    log.info(
      `${what}${options.reason ? ` (${options.reason})` : ''}: ${plural(adding.length, 'vector')} to add, ${removed.toLocaleString('en-US')} removed.`,
    );
  }
  const generation = read.before === read.after ? read.before : undefined;
  const progress = new Progress(log, what, adding.length, options.progressIntervalMs);
  let at = 0;
  const done = insertAll(
    hnsw,
    storeId,
    options.dimensions,
    () => {
      const batch = adding.slice(at, at + BATCH);
      at += batch.length;
      return batch.length ? source.vectors(batch) : undefined;
    },
    progress,
  ).then((count) => {
    if (count > 0) progress.end(count);
    return claim(hnsw, source, storeId, generation);
  });
  return { adding: adding.length, removed, done };
}
