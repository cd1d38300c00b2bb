import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { SearchHit, StoreSearcher, StoreSearchOptions } from '../vector';
import type { DocumentsCore } from './documents-core';
import type { QueryRewriter } from './query-rewrite';

/** What a store search answers: the queries searched (after any rewrite) and the hits. */
export interface StoreSearchResult {
  search_query: string[];
  data: SearchHit[];
}

/**
 * Search across stores of one account, and waiting until their files are ingested: the `StoreSearcher`
 * contract assistants (`file_search`) and `/v1/responses` use, and the engine of
 * `fathom.vectorStores.search`.
 */
export class StoreSearch implements StoreSearcher {
  constructor(
    private readonly core: DocumentsCore,
    private readonly rewriteQuery: QueryRewriter,
  ) {}

  /** Hybrid search over stores of one account. Any store not of this account answers 404. */
  async search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    return (await this.run(accountId, storeIds, options)).data;
  }

  /**
   * Checks every store belongs to the account (404) and has not expired (400); with `rewriteQuery`,
   * each query is rewritten first (a configured model, else the lexical rewrite) and `search_query`
   * shows it; `last_active_at` moves.
   */
  async run(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<StoreSearchResult> {
    const { core } = this;
    const rows = await Promise.all(storeIds.map((id) => core.storeRow(accountId, id)));
    for (const row of rows) {
      if (core.isExpired(row)) throw new InvalidRequestError(`Vector store '${row.id}' has expired.`, 'vector_store_id');
    }
    const original = Array.isArray(options.query) ? options.query : [options.query];
    const queries = options.rewriteQuery ? await Promise.all(original.map((query) => this.rewriteQuery(query))) : original;
    if (rows.length === 0) return { search_query: queries, data: [] };
    const data = await core.index.search(storeIds, { ...options, query: Array.isArray(options.query) ? queries : queries[0]! });
    // Activity is bookkeeping: a search still answers when it cannot be recorded (a full disk).
    const now = nowSeconds();
    for (const row of rows) {
      await core.repos.stores.touch(row.id, now).catch((error: Error) => {
        core.log.warn(`could not record activity on vector store ${row.id}: ${error.message}`);
      });
    }
    return { search_query: queries, data };
  }

  /** Resolves true once no file of these stores is `in_progress` (on any process), false after `timeoutMs`. */
  async waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean> {
    const { core } = this;
    for (const id of storeIds) await core.storeRow(accountId, id);
    // While one of the stores' files runs here, counting rows is not needed.
    return core.waitUntil(
      async () => !core.queue.isRunningIn(storeIds) && (await core.repos.storeFiles.countInProgress(storeIds)) === 0,
      timeoutMs,
    );
  }
}
