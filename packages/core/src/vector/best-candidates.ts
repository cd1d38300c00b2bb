import { fuseScore } from './fuse-rankings';
import type { StoreSearchOptions } from './types';

/**
 * The best score of each chunk over all the queries of one search, and the final cut. Both indexes
 * feed it the same way: per query, the rows that passed the filters and the two candidate lists (ids,
 * best first); ranks are counted among the rows that passed (the vector side's by exact similarity), and
 * each row is scored by the fusion of both rankings (or its similarity alone in `vector` mode).
 */
export class BestCandidates<Row extends { id: number }> {
  readonly #best = new Map<number, { score: number; row: Row }>();

  constructor(
    private readonly options: {
      mode: NonNullable<StoreSearchOptions['mode']>;
      depth: number;
      hybridWeights?: StoreSearchOptions['hybridWeights'];
    },
  ) {}

  /** Scores one query's rows; `similarity` and `coverage` measure a row against that query. */
  addQuery(input: {
    rows: ReadonlyMap<number, Row>;
    vectorList: readonly number[];
    keywordList: readonly number[];
    keywordActive: boolean;
    similarity: (row: Row) => number;
    coverage: (row: Row) => number;
  }): void {
    const { mode, depth, hybridWeights } = this.options;
    const { rows } = input;
    const similarities = new Map<number, number>();
    const similarity = (row: Row) => {
      let value = similarities.get(row.id);
      if (value === undefined) similarities.set(row.id, (value = input.similarity(row)));
      return value;
    };
    // The vector side's candidates are ranked by their exact similarity, not the order the index gave: an
    // IVF ranks on 8-bit rows (scores ~0.002 off), and two near-equal candidates may come in either order.
    const vectorRank = new Map(
      input.vectorList
        .filter((id) => rows.has(id))
        .slice(0, depth)
        .map((id) => ({ id, similarity: similarity(rows.get(id)!) }))
        .sort((a, b) => b.similarity - a.similarity)
        .map(({ id }, rank) => [id, rank]),
    );
    const keywordRank = new Map(input.keywordList.filter((id) => rows.has(id)).map((id, rank) => [id, rank]));
    for (const row of rows.values()) {
      if (!vectorRank.has(row.id) && !keywordRank.has(row.id)) continue;
      const score =
        mode === 'vector'
          ? Math.max(0, Math.min(1, similarity(row)))
          : fuseScore(
              {
                id: row.id,
                vectorRank: vectorRank.get(row.id),
                keywordRank: keywordRank.get(row.id),
                similarity: similarity(row),
                coverage: input.coverage(row),
              },
              {
                depth,
                keywordActive: input.keywordActive,
                vectorWeight: mode === 'keyword' ? 0 : hybridWeights?.embedding,
                keywordWeight: hybridWeights?.text,
              },
            );
      const previous = this.#best.get(row.id);
      if (!previous || score > previous.score) this.#best.set(row.id, { score, row });
    }
  }

  /** The rows scoring at least `threshold` (and above 0), best first (ties by id), at most `limit`. */
  top(threshold: number, limit: number): Array<{ score: number; row: Row }> {
    return [...this.#best.values()]
      .filter((entry) => entry.score >= threshold && entry.score > 0)
      .sort((a, b) => b.score - a.score || a.row.id - b.row.id)
      .slice(0, limit);
  }
}
