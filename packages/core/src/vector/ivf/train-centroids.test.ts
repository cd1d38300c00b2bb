import { describe, expect, it } from 'vitest';
import { clusteredVectors, cosine } from './clustered-vectors';
import { trainCentroids } from './train-centroids';

describe('trainCentroids', () => {
  const data = clusteredVectors({ count: 4_000, dimensions: 32, topics: 10, noise: 0.3, queries: 0, seed: 11 });

  it('is deterministic for a seed, and another seed gives other centroids', () => {
    const a = trainCentroids(data.vectors, { dimensions: 32, lists: 40 });
    expect(trainCentroids(data.vectors, { dimensions: 32, lists: 40 })).toEqual(a);
    expect(trainCentroids(data.vectors, { dimensions: 32, lists: 40, seed: 2 })).not.toEqual(a);
  });

  it('answers unit centroids that fit the sample better with each iteration, no list left without vectors', () => {
    // The k-means objective: the mean similarity of each vector to its nearest centroid, and the lists' sizes.
    const fit = (centroids: Float32Array, lists: number) => {
      const members = new Array(lists).fill(0);
      let total = 0;
      for (let row = 0; row < 4_000; row++) {
        let best = 0;
        let score = -2;
        for (let c = 0; c < lists; c++) {
          const similarity = cosine(data.vectors, row, centroids, c, 32);
          if (similarity > score) [best, score] = [c, similarity];
        }
        members[best]++;
        total += score;
      }
      return { mean: total / 4_000, members };
    };
    const seeded = fit(trainCentroids(data.vectors, { dimensions: 32, lists: 40, iterations: 0 }), 40);
    const once = fit(trainCentroids(data.vectors, { dimensions: 32, lists: 40, iterations: 1 }), 40);
    const centroids = trainCentroids(data.vectors, { dimensions: 32, lists: 40 });
    const trained = fit(centroids, 40);
    expect(once.mean).toBeGreaterThan(seeded.mean);
    expect(trained.mean).toBeGreaterThanOrEqual(once.mean);
    // Vectors lie at ~0.96 of their topic's centre: trained centroids come close to that.
    expect(trained.mean).toBeGreaterThan(0.94);
    expect(Math.min(...trained.members)).toBeGreaterThan(0);
    for (let c = 0; c < 40; c++) {
      let norm = 0;
      for (let d = 0; d < 32; d++) norm += centroids[c * 32 + d]! ** 2;
      expect(norm).toBeCloseTo(1, 5);
    }
  });

  it('makes no more lists than the sample has vectors', () => {
    expect(trainCentroids(data.vectors.subarray(0, 5 * 32), { dimensions: 32, lists: 40 })).toHaveLength(5 * 32);
  });
});
