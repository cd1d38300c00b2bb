/**
 * A short-lived worker thread that trains an IVF index's centroids (`trainCentroids`, ~15 s of CPU for a shard
 * of 500k vectors) off the graph workers, which answer every store's searches meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import { trainCentroids } from './ivf';

parentPort!.once('message', (message: { sample: Float32Array; dimensions: number; lists: number }) => {
  const centroids = trainCentroids(message.sample, { dimensions: message.dimensions, lists: message.lists });
  parentPort!.postMessage(centroids, [centroids.buffer as ArrayBuffer]);
});
