import type { SqlClient } from '../storage';
import type { KeywordPlan, PlannedGroup } from './keyword-index';
import { type KeywordPlanOptions, planKeywordGroups, tooCommonFrequency } from './keyword-plan';
import { keywordTokens, parseKeywordQuery } from './keyword-query';

/** A keyword plan on PostgreSQL: the groups (for coverage and fusion) plus the corpus size they were weighed against. */
export interface PgKeywordPlan extends KeywordPlan {
  total: number;
}

/** PostgreSQL caps a position at 16,383 and a lexeme at 2,047 bytes. */
const MAX_POSITION = 16_383;
const MAX_LEXEME_BYTES = 2046;

const quote = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * The `tsvector` of a chunk in PostgreSQL's text form (`'word':1,4 'other':2`), built from the same
 * tokens the SQLite index uses (`keywordTokens`: lower-cased, diacritics removed) rather than from a
 * text-search configuration, so both backends match the same words. Positions keep phrases working.
 */
export function toTsvector(text: string): string {
  const positions = new Map<string, number[]>();
  keywordTokens(text).forEach((token, i) => {
    if (Buffer.byteLength(token) > MAX_LEXEME_BYTES) return;
    const list = positions.get(token);
    const position = Math.min(i + 1, MAX_POSITION);
    if (!list) positions.set(token, [position]);
    else if (list.length < 256 && list[list.length - 1] !== position) list.push(position);
  });
  return [...positions].map(([token, at]) => `${quote(token)}:${at.join(',')}`).join(' ');
}

/** The `tsquery` (text form) of one planned group: any of a term's forms, or a phrase's words in order. */
export function groupTsquery(group: PlannedGroup): string {
  return group.kind === 'phrase' ? group.words.map(quote).join(' <-> ') : group.present.map(quote).join(' | ');
}

/**
 * Keyword search on PostgreSQL: a GIN index over each chunk's `tsvector`. Queries are pruned like on
 * SQLite (`planKeywordGroups`, with document frequencies counted through the GIN index, capped and
 * cached), and rows rank by a BM25-like sum over the searched groups: IDF weight times `ts_rank`
 * normalised by document length.
 */
export class PgKeywordSearch {
  private readonly cache = new Map<string, number>();
  private cachedTotal = -1;

  constructor(
    private readonly db: SqlClient,
    private readonly options: KeywordPlanOptions = {},
  ) {}

  async plan(query: string): Promise<PgKeywordPlan> {
    const row = await this.db.get<{ total: number | null }>('SELECT SUM(chunk_count) AS total FROM vector_index_meta');
    const total = Math.max(1, Number(row?.total ?? 0));
    const parsed = parseKeywordQuery(query);
    const words = [...new Set(parsed.flatMap((group) => group.words))];
    const frequencies = await this.frequencies(words, total);
    const groups = planKeywordGroups(parsed, (word) => frequencies.get(word) ?? 0, total, this.options);
    const searched = groups.filter((group) => group.searched);
    return { groups, match: searched.length ? searched.map((group) => `(${groupTsquery(group)})`).join(' | ') : null, total };
  }

  /** Top `limit` chunk ids of the stores (best first), optionally only among `fileIds` of those stores. */
  async search(plan: PgKeywordPlan, storeIds: string[], limit: number, fileIds?: string[]): Promise<number[]> {
    if (!plan.match || storeIds.length === 0) return [];
    const searched = plan.groups.filter((group) => group.searched);
    const rank = searched.map(() => 'ts_rank(keywords, CAST(? AS tsquery), 1) * ?').join(' + ');
    const rankParams = searched.flatMap((group) => [groupTsquery(group), group.idf]);
    const rows = await this.db.all<{ id: number }>(
      `SELECT id FROM vector_chunks
       WHERE keywords @@ CAST(? AS tsquery) AND store_id = ANY(?)${fileIds ? ' AND file_id = ANY(?)' : ''}
       ORDER BY ${rank} DESC, id LIMIT ?`,
      [plan.match, storeIds, ...(fileIds ? [fileIds] : []), ...rankParams, limit],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * Document frequencies of `words` over all chunks, counted through the GIN index and capped just
   * above what the plan could still search. Frequencies only steer pruning and IDF weights, so they are
   * cached until the corpus size moves by 10%.
   */
  private async frequencies(words: string[], total: number): Promise<Map<string, number>> {
    if (this.cachedTotal < 0 || Math.abs(total - this.cachedTotal) > 0.1 * Math.max(this.cachedTotal, 100)) {
      this.cache.clear();
      this.cachedTotal = total;
    }
    const missing = words.filter((word) => !this.cache.has(word));
    if (missing.length) {
      const cap = Math.ceil(tooCommonFrequency(total, this.options)) + 1;
      const rows = await this.db.all<{ word: string; n: number }>(
        `SELECT w.word AS word, (SELECT COUNT(*) FROM (SELECT 1 FROM vector_chunks c
            WHERE c.keywords @@ CAST(quote_literal(w.word) AS tsquery) LIMIT ?) s) AS n
         FROM unnest(CAST(? AS text[])) AS w(word)`,
        [cap, missing],
      );
      if (this.cache.size > 50_000) this.cache.clear();
      for (const row of rows) this.cache.set(row.word, Number(row.n));
    }
    return new Map(words.map((word) => [word, this.cache.get(word) ?? 0]));
  }
}
