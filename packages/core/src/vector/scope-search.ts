import { BestCandidates } from './best-candidates';
import type { ChunkWrites } from './chunk-writes';
import { mergeRanges } from './id-ranges';
import { type KeywordIndex, keywordCoverage, type KeywordPlan } from './keyword-index';
import type { FileSelection, StoreFiles } from './store-files';
import type { SearchHit, StoreSearchOptions } from './types';
import type { VectorCandidates, VectorScope } from './vector-candidates';
import { blobToVector, dot } from './vector-blob';
import type { SqliteDatabase } from '../storage';
import type { CandidateRow, MetaRow } from './vector-rows';

/** A store to search and the files of it a filter leaves. */
export interface SearchScope {
  meta: MetaRow;
  selection: FileSelection;
}

export interface ScopeSearchOptions {
  mode: 'hybrid' | 'vector' | 'keyword';
  /** Candidates taken from each side per query. */
  depth: number;
  limit: number;
  threshold: number;
  hybridWeights: StoreSearchOptions['hybridWeights'];
}

/**
 * One search over stores whose graphs are held: per query, the vector side (posted to the graph workers
 * first) and the keyword side (FTS5, on this thread meanwhile), the candidates read once, filtered and
 * fused into the best hits.
 */
export class ScopeSearch {
  private readonly sql;

  constructor(
    db: SqliteDatabase['raw'],
    private readonly parts: {
      files: StoreFiles;
      keywords: KeywordIndex;
      candidates: VectorCandidates;
      writes: ChunkWrites;
    },
  ) {
    this.sql = {
      file: db.prepare<[string, string], { filename: string; attributes: string | null }>(
        'SELECT filename, attributes FROM vector_files WHERE store_id = ? AND file_id = ?',
      ),
      candidates: db.prepare<[string], CandidateRow>(
        'SELECT id, store_id, file_id, text, vector FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      candidateTexts: db.prepare<[string], CandidateRow>(
        'SELECT id, store_id, file_id, text FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))',
      ),
      // Rows written by this connection, and a number that moves when another connection commits.
      writes: db.prepare<[], { changes: number; version: number }>(
        'SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version',
      ),
    };
  }

  async run(
    scopes: SearchScope[],
    queries: string[],
    queryVectors: Map<string, Map<string, Float32Array>>,
    options: ScopeSearchOptions,
  ): Promise<SearchHit[]> {
    const { files, keywords, candidates, writes } = this.parts;
    const { sql } = this;
    const { mode, depth } = options;
    const best = new BestCandidates<CandidateRow>({ mode, depth, hybridWeights: options.hybridWeights });
    const storeIds = scopes.map((scope) => scope.meta.store_id);
    const searchedChunks = scopes.reduce((sum, scope) => sum + scope.meta.chunk_count, 0);
    const selections = new Map(scopes.map((scope) => [scope.meta.store_id, scope.selection]));
    // Keywords are narrowed in FTS5 when a filter narrows every store: the chunk ids the filter leaves.
    const narrowed = scopes.every((scope) => scope.selection.kind === 'some')
      ? mergeRanges(
          scopes.flatMap(({ selection }) => {
            const ranges = selection.kind === 'some' ? selection.ranges : new Float64Array(0);
            return Array.from({ length: ranges.length / 2 }, (_, i): [number, number] => [ranges[2 * i]!, ranges[2 * i + 1]!]);
          }),
        )
      : undefined;
    // The first and last chunk id of the stores searched, so FTS5 skips the postings of other stores' chunks outside them.
    let bounds: [number, number] | undefined;
    for (const { meta } of scopes) {
      const own = files.bounds(meta.store_id, meta.generation);
      if (own) bounds = bounds ? [Math.min(bounds[0], own[0]), Math.max(bounds[1], own[1])] : own;
    }
    for (const query of queries) {
      const vectors = queryVectors.get(query) ?? new Map<string, Float32Array>();
      // The HNSW searches are posted to the worker first, so they run while FTS5 works on this thread.
      const vectorPending =
        mode === 'keyword'
          ? Promise.resolve([])
          : candidates.find(
              scopes.map(
                ({ meta, selection }): VectorScope => ({
                  storeId: meta.store_id,
                  chunks: meta.chunk_count,
                  query: vectors.get(meta.store_id)!,
                  selection,
                }),
              ),
              depth,
            );
      const plan: KeywordPlan = mode === 'vector' ? { groups: [], match: null, total: 0 } : keywords.plan(query);
      const keywordList = mode === 'vector' ? [] : keywords.search(plan, storeIds, depth, narrowed, searchedChunks >= plan.total, bounds);
      const keywordIds = keywordList.map((hit) => hit.id);
      // Keyword-only scores need no vectors: their rows are read without the 1.5 KB blob. The keyword side's
      // rows are read while the graph workers still search (each is a random read in a large store).
      const read = (ids: number[]) =>
        ids.length ? (mode === 'keyword' ? sql.candidateTexts : sql.candidates).all(JSON.stringify(ids)) : [];
      const before = sql.writes.get()!;
      let keywordRows = read(keywordIds);
      const vectorList = await vectorPending;
      // A write committed meanwhile may have replaced or removed those rows: they are read again then.
      const after = sql.writes.get()!;
      if (after.changes !== before.changes || after.version !== before.version) keywordRows = read(keywordIds);
      const fromKeywords = new Set(keywordIds);
      const rest = [...new Set(vectorList.filter((id) => !fromKeywords.has(id)))];
      if (keywordIds.length === 0 && rest.length === 0) continue;
      // Filters apply to the rows themselves (read after the vector side answered, so a file being written
      // meanwhile is left out); ranks are counted among the rows that pass.
      const passes = (row: CandidateRow) => {
        if (writes.isBusy(row.store_id, row.file_id)) return false;
        const selection = selections.get(row.store_id);
        return selection !== undefined && (selection.kind === 'all' || (selection.kind === 'some' && selection.files.has(row.file_id)));
      };
      const rows = new Map([...keywordRows, ...read(rest)].filter(passes).map((row) => [row.id, row]));
      best.addQuery({
        rows,
        vectorList,
        keywordList: keywordIds,
        keywordActive: plan.groups.length > 0,
        similarity: (row) => (row.vector ? dot(vectors.get(row.store_id) ?? new Float32Array(0), blobToVector(row.vector)) : 0),
        coverage: (row) => keywordCoverage(plan, row.text),
      });
    }
    // A file's name and attributes are read (and parsed) once, however many of its chunks are hits.
    const fileOf = new Map<string, { filename: string; attributes: SearchHit['attributes'] }>();
    return best.top(options.threshold, options.limit).map(({ score, row }): SearchHit => {
      const key = `${row.store_id}\u0000${row.file_id}`;
      let file = fileOf.get(key);
      if (!file) {
        const found = sql.file.get(row.store_id, row.file_id);
        file = { filename: found?.filename ?? row.file_id, attributes: found?.attributes ? JSON.parse(found.attributes) : null };
        fileOf.set(key, file);
      }
      return {
        file_id: row.file_id,
        filename: file.filename,
        score: Math.round(score * 1e6) / 1e6,
        // Each hit gets its own copy (attributes are flat): a caller may change one hit's attributes.
        attributes: file.attributes ? { ...file.attributes } : null,
        content: [{ type: 'text', text: row.text }],
      };
    });
  }
}
