import { type GraphParameters, SHARDS } from './store-graphs';

/**
 * HNSW parameters and search beam, measured on the benchmark's corpus (384-d vectors in 300 tight topics;
 * docs/performance.md "Scale", "Graph parameters"; `bench/scale/graph-study.ts`). Within a topic the vectors
 * are near one another and near-equidistant from a query, so a search finds the true neighbours only once
 * its beam covers about the query's topic within the shard (shard size / 300 here): recall jumps at that
 * beam, whatever the graph's degree. A graph built with a wider beam (efConstruction 200) jumps higher
 * there (0.980 against 0.954 at 300k vectors and a beam of 1,200), so it needs a beam of about the topic's
 * size where a graph of efConstruction 100 needed more than twice that.
 */

/** The efConstruction of graphs built by this version; files built with less keep their own beam rule. */
const EF_CONSTRUCTION = 200;

/**
 * Graph degree and build-time beam of a new graph (each shard of a store). The same at every size: hnswlib
 * fixes both when a graph is created, and a store's graph is created small and grows by inserts, so a rule
 * by size would only ever apply to rebuilds. M 16: a larger M (24, 32) cost more per beam step and memory
 * (+128 bytes per vector at 32) for no better recall at the same CPU; efConstruction 200: no memory, about
 * 2x the CPU of an insert, and the higher recall above.
 */
export function graphParameters(_chunks: number): GraphParameters {
  return { m: 16, efConstruction: EF_CONSTRUCTION };
}

/**
 * The search beam of each shard for `k` neighbours of a store of `chunks` chunks whose graphs were `built`
 * with these parameters (undefined: not opened yet, i.e. they will be built new). At least 8 × k (the beam
 * follows the results asked for), and:
 * - graphs of efConstruction 200 or more: the shard's size / 250, at least 400 (recall@8 0.98 at 100k and
 *   300k vectors per shard; 2,000 per shard at 1M chunks);
 * - graphs built with less (files of earlier versions, loaded as they are): the rule they were measured
 *   with, the shard's size / 125, at least 800 (recall@8 0.973 at 1M chunks with 4,000 per shard).
 */
export function searchBeam(chunks: number, k: number, built?: GraphParameters): number {
  const perShard = chunks / SHARDS;
  const efConstruction = built?.efConstruction ?? EF_CONSTRUCTION;
  if (efConstruction >= EF_CONSTRUCTION) return Math.max(400, 8 * k, Math.ceil(perShard / 250));
  return Math.max(800, 8 * k, Math.ceil(perShard / 125));
}
