import { describe, expect, it } from 'vitest';
import { BestCandidates } from './best-candidates';

interface Row {
  id: number;
  similarity: number;
  coverage: number;
}

const rows = (list: Row[]) => new Map(list.map((row) => [row.id, row]));

describe('BestCandidates', () => {
  it('ranks the vector side by exact similarity, whatever order the index answered in', () => {
    // The index answered 2 before 1 (an IVF ranks on 8-bit rows); 1 is the nearer by its exact vector.
    const candidates = rows([
      { id: 1, similarity: 0.8, coverage: 0 },
      { id: 2, similarity: 0.79, coverage: 0 },
    ]);
    const score = (vectorList: number[]) => {
      const best = new BestCandidates<Row>({ mode: 'hybrid', depth: 40 });
      best.addQuery({
        rows: candidates,
        vectorList,
        keywordList: [],
        keywordActive: true,
        similarity: (row) => row.similarity,
        coverage: (row) => row.coverage,
      });
      return best.top(0, 10).map(({ row, score }) => ({ id: row.id, score }));
    };
    expect(score([2, 1])).toEqual(score([1, 2]));
    const [first, second] = score([2, 1]);
    expect(first!.id).toBe(1);
    expect(first!.score).toBeGreaterThan(second!.score);
  });

  it('keeps only the first depth candidates of the vector list that passed the filters', () => {
    const candidates = rows([
      { id: 1, similarity: 0.5, coverage: 0 },
      { id: 2, similarity: 0.9, coverage: 0 },
      { id: 3, similarity: 0.7, coverage: 0 },
    ]);
    const best = new BestCandidates<Row>({ mode: 'vector', depth: 2 });
    best.addQuery({
      rows: candidates,
      vectorList: [1, 4, 3, 2],
      keywordList: [],
      keywordActive: false,
      similarity: (row) => row.similarity,
      coverage: () => 0,
    });
    // 4 did not pass (no row); of 1, 3, 2 the first two are kept, best first.
    expect(best.top(0, 10).map(({ row }) => row.id)).toEqual([3, 1]);
  });
});
