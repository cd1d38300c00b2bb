/**
 * How large an IVF index is made for a store: lists from the number of vectors, the training sample from
 * the lists, and the lists a search scans. Measured on the scale bench's 1M vectors (300 tight topics,
 * 384-d; docs/performance.md, "An inverted-file index"): 1,000 lists, recall@8 0.983 at 12 lists scanned
 * and 0.998 at 16 (the study); the module's own figures in docs/decisions/2026-11-26-ivf-module.md.
 */

/** Lists for `vectors` vectors: about the square root (1,000 at 1M), at least 1 and at most 65,536. */
export function defaultLists(vectors: number): number {
  return Math.max(1, Math.min(65_536, Math.round(Math.sqrt(vectors))));
}

/**
 * Lists a search scans: 1.6% of them, at least 8 (16 of 1,000 at 1M: recall@8 0.998 in the study, where
 * 8 gave 0.945 and 12 gave 0.983, so the rule keeps a margin over 0.95).
 */
export function defaultProbes(lists: number): number {
  return Math.min(lists, Math.max(8, Math.ceil(lists * 0.016)));
}

/** Vectors to train `lists` centroids on: 50 per list (the study's 50,000 for 1,000 lists). */
export function trainingSampleSize(lists: number): number {
  return lists * 50;
}
