import { SHARDS } from './store-graphs';

/**
 * HNSW parameters by store size, measured on the benchmark's corpus (384-d vectors in 300 tight topics,
 * docs/performance.md "Scale"): within a topic the vectors are near one another, so the beam a graph
 * needs for a given recall grows with the number of vectors per topic, i.e. with the graph's size.
 */

/** Graph degree and build-time beam of a new graph (each shard of a store). */
export function graphParameters(_chunks: number): { m: number; efConstruction: number } {
  return { m: 16, efConstruction: 100 };
}

/**
 * The search beam of each shard for `k` neighbours of a store of `chunks` chunks: 800 (recall@8 0.998 at
 * 100k chunks), at least 8 × k, and growing with the shard's size beyond 100k chunks per shard: 4,000 at
 * 1M chunks. (A beam of `chunks per shard / 200`, 2,500 at 1M, gave recall@8 0.938 there; docs/performance.md.)
 */
export function searchBeam(chunks: number, k: number): number {
  return Math.max(800, 8 * k, Math.ceil(chunks / SHARDS / 125));
}
