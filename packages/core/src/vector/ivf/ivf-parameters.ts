/**
 * How large an IVF index is made for a store: lists from the number of vectors, the training sample from
 * the lists, and the lists a search scans. Measured with this module on the scale bench's 1M vectors (300
 * tight topics, 384-d; bench/scale/ivf-module.ts, docs/decisions/2026-11-26-ivf-module.md): 1,000 lists,
 * recall@8 0.920 scanning 4 lists, 0.984 at 8, 0.991 at 12, 0.994 at 16.
 */

/** Lists for `vectors` vectors: about the square root (1,000 at 1M), at least 1 and at most 65,536. */
export function defaultLists(vectors: number): number {
  return Math.max(1, Math.min(65_536, Math.round(Math.sqrt(vectors))));
}

/**
 * Lists a search scans: 1.2% of them, at least 8 (12 of 1,000 at 1M: recall@8 0.991 for 2.1 ms of CPU;
 * 4 lists gave 0.920, so the rule keeps three times the lists where recall falls below 0.95).
 */
export function defaultProbes(lists: number): number {
  return Math.min(lists, Math.max(8, Math.ceil(lists * 0.012)));
}

/** Vectors to train `lists` centroids on: 50 per list (50,000 for 1,000 lists: 31 s of CPU at 384-d). */
export function trainingSampleSize(lists: number): number {
  return lists * 50;
}
