import { describe, expect, it } from 'vitest';
import { mergeRanges } from '../id-ranges';
import { type ClusteredVectors, clusteredVectors, cosine, exactTop } from './clustered-vectors';
import { IvfIndex } from './ivf-index';
import { defaultLists, defaultProbes, trainingSampleSize } from './ivf-parameters';
import { trainCentroids } from './train-centroids';

// 20,000 vectors of 64-d in 30 topics (seeded); labels are row + 1,000 (chunk ids are not rows). A topic
// spreads over ~5 of the 141 lists, as the scale bench's 300 topics over 1,000 lists at 1M: on this data
// recall@8 is 0.44 at nprobe 1, 0.72 at 2, 0.95 at 4 and 1.00 at 8 (the rule's).
const data = clusteredVectors({ count: 20_000, dimensions: 64, topics: 30, noise: 0.6, queries: 60, seed: 42 });
const LABEL = 1_000;
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => LABEL + from + i);
const query = (q: number) => data.queries.subarray(q * data.dimensions, (q + 1) * data.dimensions);

function trained(source: ClusteredVectors, options: { maximumBytes?: number; blockRows?: number } = {}): IvfIndex {
  const lists = defaultLists(source.vectors.length / source.dimensions);
  const sample = source.vectors.subarray(0, Math.min(source.vectors.length, trainingSampleSize(lists) * source.dimensions));
  return new IvfIndex({
    dimensions: source.dimensions,
    centroids: trainCentroids(sample, { dimensions: source.dimensions, lists }),
    ...options,
  });
}

function recall(index: IvfIndex, k: number): number {
  let found = 0;
  for (let q = 0; q < 60; q++) {
    const truth = new Set(exactTop(data, q, k).map((row) => row + LABEL));
    found += index.search(query(q), k).filter(({ label }) => truth.has(label)).length;
  }
  return found / (60 * k);
}

/**
 * What the 8-bit rows leave of an exact top 8 (the IVF's answer is a candidate list scored again exactly by
 * its caller): each hit's distance is its exact one within 0.005, none is worse than the exact 8th by more,
 * and the hits are the exact top 8 but for near-ties.
 */
function expectNearExact(hits: Array<{ label: number; distance: number }>, q: number, keep: (row: number) => boolean = () => true) {
  const truth = exactTop(data, q, 9, keep);
  const eighth = cosine(data.queries, q, data.vectors, truth[7]!, 64);
  expect(hits).toHaveLength(8);
  for (const { label, distance } of hits) {
    expect(keep(label - LABEL)).toBe(true);
    const exact = cosine(data.queries, q, data.vectors, label - LABEL, 64);
    expect(Math.abs(1 - exact - distance)).toBeLessThan(0.005);
    expect(exact).toBeGreaterThan(eighth - 0.005);
  }
  const found = new Set(hits.map((hit) => hit.label - LABEL));
  expect(truth.slice(0, 8).filter((row) => found.has(row)).length).toBeGreaterThanOrEqual(7);
}

const index = trained(data);
index.add(rows(0, 20_000), data.vectors);

describe('IvfIndex', () => {
  it('finds the exact top 8 at the default nprobe (recall@8 >= 0.95), best first, with cosine distances', () => {
    expect(index.lists).toBe(141);
    expect(index.nprobe).toBe(defaultProbes(141));
    expect(index.count).toBe(20_000);
    expect(recall(index, 8)).toBeGreaterThanOrEqual(0.95);
    const hits = index.search(query(0), 8);
    expect(hits).toHaveLength(8);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.distance).toBeGreaterThanOrEqual(hits[i - 1]!.distance);
    // A stored vector is its own nearest neighbour, at distance ~0 (its 8-bit row: within 0.002).
    const self = index.search(data.vectors.subarray(5 * 64, 6 * 64), 1)[0]!;
    expect(self.label).toBe(LABEL + 5);
    expect(Math.abs(self.distance)).toBeLessThan(0.002);
  });

  it('never returns a deleted label, still finds the vector moved into its slot, and counts only known labels', () => {
    const small = clusteredVectors({ count: 3_000, dimensions: 64, topics: 20, queries: 1, seed: 7 });
    const local = trained(small);
    local.add(
      Array.from({ length: 3_000 }, (_, i) => i),
      small.vectors,
    );
    const gone = Array.from({ length: 1_000 }, (_, i) => i * 3);
    expect(local.delete([...gone, 999_999])).toBe(1_000);
    expect(local.count).toBe(2_000);
    expect(local.delete([0])).toBe(0);
    for (let row = 0; row < 3_000; row++) {
      const vector = small.vectors.subarray(row * 64, (row + 1) * 64);
      const [hit] = local.search(vector, 1, { nprobe: local.lists });
      if (row % 3 === 0) expect(hit!.label).not.toBe(row);
      else expect(hit).toEqual({ label: row, distance: expect.closeTo(0, 2) });
    }
    const labels = [...local.labels()].sort((a, b) => a - b);
    expect(labels).toEqual(Array.from({ length: 3_000 }, (_, i) => i).filter((i) => i % 3 !== 0));
    // Adding a held label again replaces its vector.
    local.add([1], small.vectors.subarray(2 * 64, 3 * 64));
    expect(local.count).toBe(2_000);
    expect(
      local
        .search(small.vectors.subarray(2 * 64, 3 * 64), 2, { nprobe: local.lists })
        .map((hit) => hit.label)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('answers a filter of few labels exactly, over the allowed labels it holds', () => {
    // Every 50th row (400 labels) and a range of 300 beyond the index's labels.
    const allowed = mergeRanges([
      ...Array.from({ length: 400 }, (_, i): [number, number] => [LABEL + i * 50, LABEL + i * 50]),
      [90_000, 90_300],
    ]);
    for (let q = 0; q < 20; q++) expectNearExact(index.search(query(q), 8, { allowed }), q, (row) => row % 50 === 0);
    expect(index.exactFilterLimit()).toBe(1_024);
    // Forced exact over every label (20,000 > the kernel's table of 4,096 runs): the exact top 8.
    const everything = Float64Array.from([0, 10 ** 6]);
    for (let q = 0; q < 5; q++)
      expectNearExact(index.search(query(q), 8, { allowed: everything, exactLimit: Number.POSITIVE_INFINITY }), q);
  });

  it('answers a filter of many labels from the probed lists with allowed labels only, probing further until k are found', () => {
    // Rows 0..17,999 minus every 9th: far above the exact bound (1,024 here).
    const pairs: Array<[number, number]> = [];
    for (let row = 0; row < 18_000; row += 9) pairs.push([LABEL + row + 1, LABEL + row + 8]);
    const allowed = mergeRanges(pairs);
    let found = 0;
    for (let q = 0; q < 30; q++) {
      const hits = index.search(query(q), 8, { allowed });
      expect(hits).toHaveLength(8);
      for (const { label } of hits) expect((label - LABEL) % 9 !== 0 && label - LABEL < 18_000).toBe(true);
      const truth = new Set(exactTop(data, q, 8, (row) => row % 9 !== 0 && row < 18_000).map((row) => row + LABEL));
      found += hits.filter(({ label }) => truth.has(label)).length;
    }
    expect(found / (30 * 8)).toBeGreaterThanOrEqual(0.95);
    // Ranges past the exact bound of which the index holds 10 labels: from one list the search goes on
    // through the others until it has k allowed ones.
    const sparse = Float64Array.from([LABEL + 19_990, LABEL + 19_999, 1_000_000, 1_020_000]);
    for (let q = 0; q < 5; q++) {
      const labels = index.search(query(q), 8, { nprobe: 1, allowed: sparse }).map((hit) => hit.label);
      expect(new Set(labels).size).toBe(8);
      for (const label of labels) expect(label).toBeGreaterThanOrEqual(LABEL + 19_990);
    }
  });

  it('grows its memory past the first allocation with answers unchanged, and refuses cleanly at its maximum', () => {
    const grown = trained(data, { blockRows: 16 });
    const firstBytes = grown.bytes;
    for (let from = 0; from < 20_000; from += 2_500)
      grown.add(rows(from, from + 2_500), data.vectors.subarray(from * 64, (from + 2_500) * 64));
    // 8-bit rows: 64 values and a 16-byte scale per vector; everything held (labels, map, headroom) is less than the float rows would be.
    expect(grown.bytes).toBeGreaterThan(firstBytes + 20_000 * (64 + 16));
    expect(grown.bytes).toBeLessThan(firstBytes + 20_000 * 64 * 4);
    for (let q = 0; q < 10; q++) expect(grown.search(query(q), 8)).toEqual(index.search(query(q), 8));

    const capped = trained(data, { maximumBytes: 2 * 1024 * 1024 });
    expect(() => capped.add(rows(0, 20_000), data.vectors)).toThrow(expect.objectContaining({ code: 'vector_index_full' }));
    expect(capped.count).toBe(0);
    capped.add(rows(0, 100), data.vectors.subarray(0, 100 * 64));
    expect(capped.count).toBe(100);
  });

  it('rejects vectors of the wrong size and bad labels, naming the field', () => {
    expect(() => index.add([1], new Float32Array(63))).toThrow(expect.objectContaining({ param: 'vectors' }));
    expect(() => index.add([-1], new Float32Array(64))).toThrow(expect.objectContaining({ param: 'labels' }));
    expect(() => index.search(new Float32Array(10), 8)).toThrow(expect.objectContaining({ param: 'query' }));
    expect(index.count).toBe(20_000);
  });
});
