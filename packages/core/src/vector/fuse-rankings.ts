/** One chunk found by either side of a hybrid search, with both absolute relevances measured. */
export interface FusionCandidate {
  id: number;
  /** 0-based rank in the vector list, or undefined when the vector side did not return it. */
  vectorRank?: number;
  /** 0-based rank in the keyword list, or undefined. */
  keywordRank?: number;
  /** Cosine similarity of the chunk to the query (computed for every candidate). */
  similarity: number;
  /** Share of the query's IDF weight the chunk contains (0..1). */
  coverage: number;
}

export interface FusionOptions {
  /** Depth of each list: a candidate missing from a list counts as ranked just past it. */
  depth: number;
  /** Reciprocal-rank constant; default 60 (the RRF paper's). */
  rankConstant?: number;
  /** Weight of the vector side; default 1. */
  vectorWeight?: number;
  /** Weight of the keyword side; default 1. */
  keywordWeight?: number;
  /** False when the query has no usable keywords: the score is the vector side alone. */
  keywordActive: boolean;
}

/**
 * Reciprocal rank fusion, normalised to 0..1 and modulated by absolute relevance: each side
 * contributes `weight * relevance * (c + 1) / (c + 1 + rank)`, and the sum is divided by the summed
 * weights. A chunk first on both sides with a perfect keyword match and cosine 1 scores 1; a query
 * that matches nothing well scores low everywhere (plain RRF would still give its top hit 1).
 */
export function fuseScore(candidate: FusionCandidate, options: FusionOptions): number {
  const constant = options.rankConstant ?? 60;
  const vectorWeight = options.vectorWeight ?? 1;
  const keywordWeight = options.keywordActive ? (options.keywordWeight ?? 1) : 0;
  if (vectorWeight + keywordWeight <= 0) return 0;
  const factor = (rank: number | undefined) => (constant + 1) / (constant + 1 + (rank ?? options.depth));
  const vector = vectorWeight * Math.max(0, Math.min(1, candidate.similarity)) * factor(candidate.vectorRank);
  const keyword = keywordWeight * candidate.coverage * factor(candidate.keywordRank);
  return Math.max(0, Math.min(1, (vector + keyword) / (vectorWeight + keywordWeight)));
}
