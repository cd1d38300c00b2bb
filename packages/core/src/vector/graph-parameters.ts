/**
 * HNSW parameters by store size (placeholder, measured values follow).
 */
export function graphParameters(_chunks: number): { m: number; efConstruction: number } {
  return { m: 16, efConstruction: 100 };
}

/** The search beam for `k` neighbours in a graph of `chunks` chunks. */
export function searchBeam(_chunks: number, k: number): number {
  return Math.max(800, k);
}
