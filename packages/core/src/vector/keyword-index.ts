import type { Database } from '../db';
import { inRanges } from './id-ranges';
import { FtsMerges, type FtsMergesOptions } from './fts-merges';
import { ftsString, keywordTokens, parseKeywordQuery, type QueryGroup } from './keyword-query';
import { TermFrequencies } from './term-frequencies';

/** A query group with the forms present in the index, its document frequency and IDF weight. */
export interface PlannedGroup extends QueryGroup {
  /** Forms that occur in the index (for `term`); the phrase words (for `phrase`). */
  present: string[];
  documentFrequency: number;
  idf: number;
  /** Whether the group is part of the FTS5 query (rare enough to be worth its postings). */
  searched: boolean;
}

export interface KeywordPlan {
  groups: PlannedGroup[];
  /** FTS5 MATCH expression, or null when nothing is worth searching. */
  match: string | null;
  /** Chunks indexed in all stores when the plan was made (the `N` of the IDF weights). */
  total: number;
  /**
   * MATCH expressions tried before `match`, most words first: rows holding the rarest group and the next
   * rarest ones (AND). Set when the rarest group alone has more postings than `intersectAbove`; the hits of
   * each are taken in turn until the limit is reached, so `match` runs only when they fall short.
   */
  narrowed?: string[];
}

export interface KeywordIndexOptions {
  /** At most this many groups reach FTS5; default 6. */
  maxTerms?: number;
  /** Words after the rarest are added while their summed document frequency stays within this share of all chunks (kept between 500 and 2,000 postings); default 0.02. */
  postingsBudget?: number;
  /** A word or phrase in more than this share of all chunks (and more than 2,000) is never searched; default 0.1. */
  commonShare?: number;
  /**
   * When the rarest group alone is in more chunks than this, rows holding it and the next rarest groups
   * (up to 3 groups, each in at most 5x the postings budget) are searched first; default 500.
   */
  intersectAbove?: number;
  /** The merging of FTS5's segments in idle time (`FtsMerges`); false: none (a read-only connection). */
  merges?: FtsMergesOptions | false;
}

/**
 * BM25 keyword search over the chunk text (SQLite FTS5) with query pruning. The keyword side decides
 * hybrid latency: FTS5 scores every document that matches any term, so a natural-language query is
 * cut down first — stop words out, then groups ordered by document frequency (from `fts5vocab`, read
 * through `TermFrequencies`) and kept while their summed postings stay inside a budget, at most `maxTerms`. Phrases and
 * identifiers always stay. Dropped common words still count in `coverage`.
 */
export class KeywordIndex {
  private readonly maxTerms: number;
  private readonly postingsBudget: number;
  private readonly commonShare: number;
  private readonly intersectAbove: number;
  private readonly frequencies: TermFrequencies;
  private readonly merges: FtsMerges | undefined;
  private readonly totalStatement;

  constructor(
    private readonly db: Database,
    options: KeywordIndexOptions = {},
  ) {
    this.maxTerms = options.maxTerms ?? 6;
    this.postingsBudget = options.postingsBudget ?? 0.02;
    this.commonShare = options.commonShare ?? 0.1;
    this.intersectAbove = options.intersectAbove ?? 500;
    this.frequencies = new TermFrequencies(db);
    this.merges = options.merges === false ? undefined : new FtsMerges(db, options.merges);
    this.totalStatement = db.prepare<[], { total: number | null }>('SELECT SUM(chunk_count) AS total FROM vector_index_meta');
  }

  private documentFrequency(term: string, total: number): number {
    return this.frequencies.get(term, total);
  }

  /** Chunk rows were written or deleted (called after each write transaction). */
  noteWrites(): void {
    this.frequencies.noteWrites();
    this.merges?.noteWrites();
  }

  /** Resolves when a background vocabulary scan has ended; true when planning reads the in-memory copy (tests). */
  vocabularyScanned(): Promise<boolean> {
    return this.frequencies.scanned();
  }

  close(): void {
    this.frequencies.close();
    this.merges?.close();
  }

  /** Plans the FTS5 query for `query`: groups with frequencies, IDF weights and which ones are searched. */
  plan(query: string): KeywordPlan {
    const total = Math.max(1, this.totalStatement.get()?.total ?? 0);
    const groups: PlannedGroup[] = [];
    for (const group of parseKeywordQuery(query)) {
      let present: string[];
      let documentFrequency: number;
      if (group.kind === 'term') {
        present = group.words.filter((form) => this.documentFrequency(form, total) > 0);
        documentFrequency = Math.min(
          total,
          present.reduce((sum, form) => sum + this.documentFrequency(form, total), 0),
        );
      } else {
        const frequencies = group.words.map((word) => this.documentFrequency(word, total));
        present = frequencies.every((frequency) => frequency > 0) ? group.words : [];
        documentFrequency = Math.min(...frequencies);
      }
      if (present.length === 0) continue;
      const idf = Math.log(1 + (total - documentFrequency + 0.5) / (documentFrequency + 0.5));
      groups.push({ ...group, present, documentFrequency, idf, searched: false });
    }
    const order = [...groups].sort((a, b) =>
      a.kind === b.kind ? a.documentFrequency - b.documentFrequency : a.kind === 'phrase' ? -1 : 1,
    );
    // FTS5 spends a few microseconds per matching row (BM25 reads each row's length), so the summed
    // document frequency of what is searched is the latency budget.
    const budget = Math.min(2000, Math.max(500, this.postingsBudget * total));
    const tooCommon = Math.max(2000, this.commonShare * total);
    let postings = 0;
    let kept = 0;
    for (const group of order) {
      if (kept >= this.maxTerms) break;
      if (group.documentFrequency > tooCommon) continue;
      if (kept > 0 && group.kind === 'term' && postings + group.documentFrequency > budget) continue;
      group.searched = true;
      postings += group.documentFrequency;
      kept++;
    }
    const expression = (group: PlannedGroup) =>
      `(${group.kind === 'phrase' ? ftsString(group.words) : group.present.map((form) => ftsString([form])).join(' OR ')})`;
    const parts = groups.filter((group) => group.searched).map(expression);
    if (parts.length === 0) return { groups, match: null, total };
    // FTS5 scores every row it matches (~1-2 µs each: BM25 reads the row's length), and at a million chunks
    // the rarest word of a query can be in thousands of them. Rows holding two or three of the query's
    // rarer groups are fewer, cost less to find than to score, and are the ones BM25 over all the groups
    // ranks first; the rarest group alone (`match`) fills what they leave.
    const partners = order.filter((group) => group.documentFrequency <= Math.min(tooCommon, 5 * budget)).slice(0, 3);
    const rarest = order.find((group) => group.searched);
    // Three groups together first (when there are three), then the rarest two.
    const stages = partners.length === 3 ? [partners, partners.slice(0, 2)] : [partners];
    const narrowed =
      rarest && rarest.documentFrequency > this.intersectAbove && partners[0] === rarest && partners.length >= 2
        ? stages.map((stage) => stage.map(expression).join(' AND '))
        : undefined;
    return { groups, match: parts.join(' OR '), total, ...(narrowed ? { narrowed } : {}) };
  }

  private byStores?: { all(...parameters: unknown[]): unknown[] };
  private inRanges?: { all(...parameters: unknown[]): unknown[] };
  private unfiltered?: { all(...parameters: unknown[]): unknown[] };

  /**
   * Top `limit` chunk ids of the stores by BM25 (best first; with `plan.narrowed`, the rows of each narrower
   * expression before those of the next), optionally only among the chunk ids in
   * `ranges` (what a filter leaves of the stores); `bounds` are the first and last chunk id of the stores
   * (optional, narrows the postings read). `everyChunk` says the stores hold every indexed chunk:
   * the store filter would keep every row, so it is left out. It is not free: FTS5 reads each matching
   * row's store id from a separate table (about a third of the query's time at 100k chunks), and the rows
   * and their order are the same without it.
   */
  search(
    plan: KeywordPlan,
    storeIds: string[],
    limit: number,
    ranges?: Float64Array,
    everyChunk = false,
    bounds?: [number, number],
  ): Array<{ id: number; bm25: number }> {
    if (!plan.match || storeIds.length === 0) return [];
    if (ranges?.length === 0) return [];
    if (!plan.narrowed) return this.searchOne(plan.match, storeIds, limit, ranges, everyChunk, bounds);
    // The narrower expressions first; each later one adds the rows the earlier ones did not return.
    const hits: Array<{ id: number; bm25: number }> = [];
    const seen = new Set<number>();
    for (const match of [...plan.narrowed, plan.match]) {
      for (const hit of this.searchOne(match, storeIds, limit, ranges, everyChunk, bounds)) {
        if (hits.length >= limit) break;
        if (seen.has(hit.id)) continue;
        seen.add(hit.id);
        hits.push(hit);
      }
      if (hits.length >= limit) break;
    }
    return hits;
  }

  private searchOne(
    match: string,
    storeIds: string[],
    limit: number,
    ranges: Float64Array | undefined,
    everyChunk: boolean,
    bounds: [number, number] | undefined,
  ): Array<{ id: number; bm25: number }> {
    if (ranges) {
      // The ranges are chunk ids of these stores only: a cheap test per matching row instead of reading its
      // store or file, and FTS5 reads only the postings between the first and the last.
      registerRangeTest(this.db);
      this.inRanges ??= this.db.prepare(
        `SELECT rowid AS id, bm25(vector_fts) AS bm25 FROM vector_fts
         WHERE vector_fts MATCH ? AND rowid BETWEEN ? AND ? AND vector_id_allowed(rowid) ORDER BY bm25 LIMIT ?`,
      );
      allowedRanges = ranges;
      try {
        return this.inRanges.all(match, ranges[0], ranges[ranges.length - 1], limit) as Array<{ id: number; bm25: number }>;
      } finally {
        allowedRanges = undefined;
      }
    }
    if (everyChunk) {
      this.unfiltered ??= this.db.prepare(
        'SELECT rowid AS id, bm25(vector_fts) AS bm25 FROM vector_fts WHERE vector_fts MATCH ? ORDER BY bm25 LIMIT ?',
      );
      return this.unfiltered.all(match, limit) as Array<{ id: number; bm25: number }>;
    }
    // Other stores hold chunks too: FTS5 reads only the postings between the stores' first and last chunk
    // ids (a store written at once is one short range), and the store of each of those rows.
    this.byStores ??= this.db.prepare(
      `SELECT rowid AS id, bm25(vector_fts) AS bm25 FROM vector_fts
       WHERE vector_fts MATCH ? AND rowid BETWEEN ? AND ? AND store_id IN (SELECT value FROM json_each(?)) ORDER BY bm25 LIMIT ?`,
    );
    const [low, high] = bounds ?? [0, Number.MAX_SAFE_INTEGER];
    return this.byStores.all(match, low, high, JSON.stringify(storeIds), limit) as Array<{ id: number; bm25: number }>;
  }
}

/** The ranges the running statement tests against (set around one synchronous `all`). */
let allowedRanges: Float64Array | undefined;
const registered = new WeakSet<Database>();

/** `vector_id_allowed(rowid)`: 1 when the id is in the ranges of the statement running now. */
function registerRangeTest(db: Database): void {
  if (registered.has(db)) return;
  db.function('vector_id_allowed', { deterministic: false, directOnly: true }, (id: unknown) =>
    allowedRanges && inRanges(allowedRanges, Number(id)) ? 1 : 0,
  );
  registered.add(db);
}

/**
 * Share of the query's IDF weight that `text` contains (0..1): a phrase counts when its words occur
 * in order, a term when any of its forms occurs. The keyword side's absolute relevance.
 */
export function keywordCoverage(plan: KeywordPlan, text: string): number {
  if (plan.groups.length === 0) return 0;
  const lower = text.toLowerCase();
  // Plain ASCII text and no phrases (most searches): look each form up as a whole word in the text
  // instead of splitting the whole text into words; same answer, a fraction of the work.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range test starts at \x00 on purpose
  if (!/[^\x00-\x7f]/.test(lower) && plan.groups.every((group) => group.kind === 'term')) {
    let total = 0;
    let matched = 0;
    for (const group of plan.groups) {
      total += group.idf;
      if (group.present.some((form) => containsAsciiWord(lower, form))) matched += group.idf;
    }
    return total > 0 ? matched / total : 0;
  }
  const tokens = keywordTokens(text);
  const set = new Set(tokens);
  let total = 0;
  let matched = 0;
  for (const group of plan.groups) {
    total += group.idf;
    if (group.kind === 'term') {
      if (group.present.some((form) => set.has(form))) matched += group.idf;
    } else if (group.words.every((word) => set.has(word)) && containsSequence(tokens, group.words)) {
      matched += group.idf;
    }
  }
  return total > 0 ? matched / total : 0;
}

/** Whether `word` occurs in lower-case ASCII `text` as one of the words `keywordTokens` finds (a maximal run of a-z0-9). */
function containsAsciiWord(text: string, word: string): boolean {
  if (word.length === 0) return false;
  for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
    if (!isAsciiWordChar(text.charCodeAt(at - 1)) && !isAsciiWordChar(text.charCodeAt(at + word.length))) return true;
  }
  return false;
}

/** a-z or 0-9 (NaN, outside the text, is not). */
const isAsciiWordChar = (code: number) => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

function containsSequence(tokens: string[], words: string[]): boolean {
  outer: for (let i = 0; i + words.length <= tokens.length; i++) {
    for (let j = 0; j < words.length; j++) if (tokens[i + j] !== words[j]) continue outer;
    return true;
  }
  return false;
}
