/**
 * Sets of chunk ids (HNSW labels, FTS5 rowids) as sorted, disjoint, inclusive `[first, last]` ranges in one
 * flat array: what a filtered search hands to the graph worker and to FTS5.
 */

/** Sorts `[first, last]` pairs and joins the ones that touch or overlap; flattened. */
export function mergeRanges(pairs: Array<[number, number]>): Float64Array {
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [first, last] of pairs) {
    const end = merged.length - 1;
    if (end > 0 && first <= merged[end]! + 1) merged[end] = Math.max(merged[end]!, last);
    else merged.push(first, last);
  }
  return Float64Array.from(merged);
}

/** Whether `id` lies in one of the sorted, flattened `[first, last]` ranges. */
export function inRanges(ranges: Float64Array, id: number): boolean {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (id < ranges[2 * mid]!) high = mid - 1;
    else if (id > ranges[2 * mid + 1]!) low = mid + 1;
    else return true;
  }
  return false;
}
