/**
 * Seeded synthetic vectors for the IVF tests: `topics` random unit centres, each vector a centre plus
 * Gaussian noise (tight topics, like the scale bench's data), and an exact top-k to compare with.
 */

export interface ClusteredVectors {
  dimensions: number;
  vectors: Float32Array;
  /** Queries drawn like the vectors (near a random topic's centre). */
  queries: Float32Array;
}

export function clusteredVectors(options: {
  count: number;
  dimensions: number;
  topics: number;
  queries: number;
  seed: number;
  noise?: number;
}): ClusteredVectors {
  const { count, dimensions, topics } = options;
  const noise = options.noise ?? 0.35;
  let state = options.seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4_294_967_296;
  };
  const gaussian = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const centres = new Float32Array(topics * dimensions);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian() / Math.sqrt(dimensions);
  const draw = (target: Float32Array, n: number) => {
    for (let i = 0; i < n; i++) {
      const topic = Math.floor(uniform() * topics);
      for (let d = 0; d < dimensions; d++)
        target[i * dimensions + d] = centres[topic * dimensions + d]! + (noise * gaussian()) / Math.sqrt(dimensions);
    }
    return target;
  };
  return {
    dimensions,
    vectors: draw(new Float32Array(count * dimensions), count),
    queries: draw(new Float32Array(options.queries * dimensions), options.queries),
  };
}

/** Cosine similarity of two rows. */
export function cosine(a: Float32Array, aRow: number, b: Float32Array, bRow: number, dimensions: number): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < dimensions; d++) {
    const x = a[aRow * dimensions + d]!;
    const y = b[bRow * dimensions + d]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

/** The exact top `k` labels of query row `q` among `labels` (vector row i has label labels[i]), best first. */
export function exactTop(data: ClusteredVectors, q: number, k: number, keep: (row: number) => boolean = () => true): number[] {
  const scored: Array<{ row: number; score: number }> = [];
  const n = data.vectors.length / data.dimensions;
  for (let row = 0; row < n; row++) if (keep(row)) scored.push({ row, score: cosine(data.queries, q, data.vectors, row, data.dimensions) });
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, k).map(({ row }) => row);
}
