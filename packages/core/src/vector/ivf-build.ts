/**
 * Builds the IVF indexes of a store's shards from the database (issue 24: a store above
 * `FATHOM_IVF_ABOVE_CHUNKS` is served by IVFs): a training sample per shard read on this thread (every n-th
 * chunk id), the centroids trained in a short-lived worker thread (the graph workers keep answering searches),
 * the empty IVF created in the shard's worker, then every vector of the shard inserted in batches with the
 * graphs' backpressure. The caller switches the store over (catch-up and swap) when this is done.
 */
import type { Worker } from 'node:worker_threads';
import { siblingWorkerUrl, startWorker } from '../internal/worker-options';
import { BATCH, type BuildOptions, insertAll, Progress, plural, type ShardTarget, vectorBatches } from './graph-build';
import { defaultLists, trainingSampleSize } from './ivf';
import { blobToVector } from './vector-blob';

/** One shard to build: its IVF's key in its worker and its file. */
export interface IvfTarget extends ShardTarget {
  path: string;
}

/** What a build did, for the log and the decision record. */
export interface IvfBuildFigures {
  sample: number;
  lists: number[];
  trainSeconds: number;
  vectors: number;
  seconds: number;
}

const running = new Set<Worker>();

/** Stops training workers still running (the process closes). */
export async function stopTraining(): Promise<void> {
  await Promise.all([...running].map((worker) => worker.terminate()));
}

/** Trains `lists` centroids on `sample` in a worker thread of its own. */
function trainOffThread(sample: Float32Array, dimensions: number, lists: number): Promise<Float32Array> {
  const worker = startWorker(siblingWorkerUrl(import.meta.url, 'ivf-train-worker'));
  running.add(worker);
  return new Promise<Float32Array>((resolve, reject) => {
    worker.once('message', (centroids: Float32Array) => resolve(centroids));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The IVF training worker exited with code ${code}.`)));
    worker.postMessage({ sample, dimensions, lists }, [sample.buffer as ArrayBuffer]);
  }).finally(() => {
    running.delete(worker);
    void worker.terminate();
  });
}

/** Every `step`-th chunk id of the shard, read from the database in batches: `size` vectors at most. */
function readSample(options: BuildOptions, ids: Float64Array, size: number): Float32Array {
  const step = ids.length / size;
  const chosen: number[] = [];
  for (let i = 0; i < size; i++) chosen.push(ids[Math.floor(i * step)]!);
  const sample = new Float32Array(size * options.dimensions);
  let rows = 0;
  for (let at = 0; at < chosen.length; at += BATCH) {
    for (const row of options.source.vectors(chosen.slice(at, at + BATCH)))
      sample.set(blobToVector(row.vector), rows++ * options.dimensions);
  }
  return sample.subarray(0, rows * options.dimensions);
}

/** Centroids for a shard of `ids`: trained on a sample, or one arbitrary unit centroid for a shard with nothing to sample. */
async function centroidsFor(options: BuildOptions, ids: Float64Array): Promise<{ centroids: Float32Array; sample: number }> {
  const lists = defaultLists(ids.length);
  const sample = readSample(options, ids, Math.min(ids.length, trainingSampleSize(lists)));
  const rows = sample.length / options.dimensions;
  if (rows === 0) {
    const centroids = new Float32Array(options.dimensions);
    centroids[0] = 1;
    return { centroids, sample: 0 };
  }
  return { centroids: await trainOffThread(sample.slice(), options.dimensions, Math.min(lists, rows)), sample: rows };
}

/**
 * Creates and fills the IVFs of `targets` (their shards' vectors inserted in id order; the graphs, if any, keep
 * answering and taking writes meanwhile). The IVFs claim no generation: the caller catches them up.
 */
export async function buildIvfs(
  options: BuildOptions & { targets: IvfTarget[]; embedderId: string; reason: string },
): Promise<IvfBuildFigures> {
  const { source, log, storeId, targets, shards, dimensions } = options;
  const started = performance.now();
  const all = source.ids(storeId).ids;
  const which = targets.length === shards ? '' : ` (${targets.map((target) => `shard ${target.shard + 1}`).join(', ')} of ${shards})`;
  const what = `Building the IVF index of ${storeId}${which}`;
  const wanted = all.filter((id) => targets.some((target) => id % shards === target.shard)).length;
  log.info(`${what} from ${plural(wanted, 'vector')} in SQLite: ${options.reason}.`);
  const figures: IvfBuildFigures = { sample: 0, lists: [], trainSeconds: 0, vectors: 0, seconds: 0 };
  for (const target of targets) {
    const ids = all.filter((id) => id % shards === target.shard);
    const trainStarted = performance.now();
    const { centroids, sample } = await centroidsFor(options, ids);
    figures.trainSeconds += (performance.now() - trainStarted) / 1000;
    figures.sample += sample;
    figures.lists.push(centroids.length / dimensions);
    await target.client.createIvf({ store: target.key, path: target.path, dimensions, embedderId: options.embedderId, centroids });
  }
  log.info(
    `${what}: trained ${plural(
      figures.lists.reduce((sum, lists) => sum + lists, 0),
      'list',
    )} (${figures.lists.join(' + ')}) on ${plural(figures.sample, 'sampled vector')} in ${figures.trainSeconds.toFixed(1)} s; adding the vectors.`,
  );
  const progress = new Progress(log, what, wanted, options.progressIntervalMs);
  // Chunks written after the ids are read are caught up at the switch.
  figures.vectors = await insertAll(targets, shards, dimensions, vectorBatches(source, all, targets, shards), progress);
  progress.end(figures.vectors);
  figures.seconds = (performance.now() - started) / 1000;
  return figures;
}
