/**
 * Spherical k-means for the IVF index's centroids: k-means++ seeding and Lloyd iterations over unit
 * vectors, every dot product by the SIMD kernel. Deterministic: a fixed seed chooses the seeds and
 * re-seeds an emptied list.
 */
import { InvalidRequestError } from '../../errors';
import { seededRandom } from '../../internal/seeded-random';
import { instantiateDots, paddedDimensions } from './dots-kernel';
import { VectorArena } from './vector-arena';

export interface TrainCentroidsOptions {
  dimensions: number;
  lists: number;
  /** Lloyd iterations after the seeding; default 8. */
  iterations?: number;
  /** Seed of the pseudo-random choices; default 1. */
  seed?: number;
}

/** `lists` unit centroids (`lists x dimensions` floats) for the `sample` (`n x dimensions` floats). */
export function trainCentroids(sample: Float32Array, options: TrainCentroidsOptions): Float32Array {
  const { dimensions } = options;
  const n = sample.length / dimensions;
  if (!Number.isInteger(n) || n < 1) throw new InvalidRequestError('The training sample must hold whole vectors.', 'sample');
  const lists = Math.min(options.lists, n);
  const stride = paddedDimensions(dimensions);
  const random = seededRandom(options.seed ?? 1);
  // Memory: scores (max(n, lists) floats), then the sample's rows, then the centroids' rows.
  const outFloats = Math.ceil(Math.max(n, lists) / 16) * 16;
  const sampleAt = outFloats * 4;
  const centroidsAt = sampleAt + n * stride * 4;
  const arena = new VectorArena({ reservedBytes: centroidsAt + lists * stride * 4, blockBytes: 16 });
  const kernel = instantiateDots(arena.memory);
  const floats = arena.floats();
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < dimensions; d++) norm += sample[i * dimensions + d]! ** 2;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let d = 0; d < dimensions; d++) floats[sampleAt / 4 + i * stride + d] = sample[i * dimensions + d]! * scale;
  }
  const row = (i: number) => sampleAt + i * stride * 4;
  const centroid = (c: number) => centroidsAt + c * stride * 4;
  const setCentroid = (c: number, i: number) => floats.copyWithin(centroid(c) / 4, row(i) / 4, row(i) / 4 + stride);

  // k-means++: each next seed drawn with probability proportional to its distance to the nearest seed.
  const nearest = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  setCentroid(0, Math.floor(random() * n));
  for (let c = 1; c < lists; c++) {
    kernel.dots(centroid(c - 1), sampleAt, n, stride, 0);
    let total = 0;
    for (let i = 0; i < n; i++) {
      nearest[i] = Math.min(nearest[i]!, Math.max(0, 1 - floats[i]!));
      total += nearest[i]!;
    }
    let pick = random() * total;
    let chosen = n - 1;
    for (let i = 0; i < n; i++)
      if ((pick -= nearest[i]!) <= 0 && nearest[i]! > 0) {
        chosen = i;
        break;
      }
    setCentroid(c, chosen);
  }

  const sums = new Float64Array(lists * dimensions);
  const counts = new Int32Array(lists);
  for (let iteration = 0; iteration < (options.iterations ?? 8); iteration++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      kernel.dots(row(i), centroidsAt, lists, stride, 0);
      let best = 0;
      for (let c = 1; c < lists; c++) if (floats[c]! > floats[best]!) best = c;
      counts[best]!++;
      const from = row(i) / 4;
      for (let d = 0; d < dimensions; d++) sums[best * dimensions + d]! += floats[from + d]!;
    }
    for (let c = 0; c < lists; c++) {
      if (counts[c] === 0) {
        setCentroid(c, Math.floor(random() * n));
        continue;
      }
      let norm = 0;
      for (let d = 0; d < dimensions; d++) norm += sums[c * dimensions + d]! ** 2;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < dimensions; d++) floats[centroid(c) / 4 + d] = sums[c * dimensions + d]! * scale;
    }
  }
  const centroids = new Float32Array(lists * dimensions);
  for (let c = 0; c < lists; c++) centroids.set(floats.subarray(centroid(c) / 4, centroid(c) / 4 + dimensions), c * dimensions);
  return centroids;
}
