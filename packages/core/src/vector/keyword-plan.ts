import type { PlannedGroup } from './keyword-index';
import type { QueryGroup } from './keyword-query';

export interface KeywordPlanOptions {
  /** At most this many groups are searched; default 6. */
  maxTerms?: number;
  /** Words after the rarest are added while their summed document frequency stays within this share of all chunks (kept between 500 and 2,000 postings); default 0.02. */
  postingsBudget?: number;
  /** A word or phrase in more than this share of all chunks (and more than 2,000) is never searched; default 0.1. */
  commonShare?: number;
}

/** The largest document frequency a plan over `total` chunks can search: anything above is pruned as too common. */
export function tooCommonFrequency(total: number, options: KeywordPlanOptions = {}): number {
  return Math.max(2000, (options.commonShare ?? 0.1) * total);
}

/**
 * Plans a keyword query from its parsed groups and the corpus statistics: the forms present in the
 * index, each group's document frequency and IDF weight, and which groups are searched (rarest first,
 * phrases before terms, within a postings budget, at most `maxTerms`). The same pruning as the SQLite
 * `KeywordIndex`, so both backends search the same words and weigh coverage alike.
 */
export function planKeywordGroups(
  parsed: readonly QueryGroup[],
  frequency: (word: string) => number,
  total: number,
  options: KeywordPlanOptions = {},
): PlannedGroup[] {
  const maxTerms = options.maxTerms ?? 6;
  const groups: PlannedGroup[] = [];
  for (const group of parsed) {
    let present: string[];
    let documentFrequency: number;
    if (group.kind === 'term') {
      present = group.words.filter((form) => frequency(form) > 0);
      documentFrequency = Math.min(
        total,
        present.reduce((sum, form) => sum + frequency(form), 0),
      );
    } else {
      const frequencies = group.words.map((word) => frequency(word));
      present = frequencies.every((value) => value > 0) ? group.words : [];
      documentFrequency = Math.min(...frequencies);
    }
    if (present.length === 0) continue;
    const idf = Math.log(1 + (total - documentFrequency + 0.5) / (documentFrequency + 0.5));
    groups.push({ ...group, present, documentFrequency, idf, searched: false });
  }
  const order = [...groups].sort((a, b) => (a.kind === b.kind ? a.documentFrequency - b.documentFrequency : a.kind === 'phrase' ? -1 : 1));
  // Scoring costs time per matching row, so the summed document frequency of what is searched is the latency budget.
  const budget = Math.min(2000, Math.max(500, (options.postingsBudget ?? 0.02) * total));
  const tooCommon = tooCommonFrequency(total, options);
  let postings = 0;
  let kept = 0;
  for (const group of order) {
    if (kept >= maxTerms) break;
    if (group.documentFrequency > tooCommon) continue;
    if (kept > 0 && group.kind === 'term' && postings + group.documentFrequency > budget) continue;
    group.searched = true;
    postings += group.documentFrequency;
    kept++;
  }
  return groups;
}
