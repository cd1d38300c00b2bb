import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { SearchHit, StoreSearchOptions, VectorIndexContract } from '../vector';
import type { DocumentsRepositories } from './documents-repositories';
import type { IngestionQueue } from './ingestion-queue';
import type { QueryRewriter } from './query-rewrite';
import type { VectorStores } from './vector-stores';

/** What a store search answers: the queries searched (after any rewrite) and the hits. */
export interface StoreSearchResult {
  search_query: string[];
  data: SearchHit[];
}

export interface StoreSearchOptionsOfDocuments {
  stores: VectorStores;
  repos: DocumentsRepositories;
  queue: IngestionQueue;
  index: VectorIndexContract;
  rewriteQuery: QueryRewriter;
  log: Logger;
}

/** Search across stores of one account, and waiting until their files are ingested. */
export class StoreSearch {
  constructor(private readonly options: StoreSearchOptionsOfDocuments) {}

  /**
   * Checks every store belongs to the account (404) and has not expired (400); with `rewriteQuery`,
   * each query is rewritten first (a configured model, else the lexical rewrite) and `search_query`
   * shows it; `last_active_at` moves.
   */
  async search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<StoreSearchResult> {
    const { stores, repos, index, rewriteQuery, log } = this.options;
    const rows = await Promise.all(storeIds.map((id) => stores.row(accountId, id)));
    for (const row of rows) {
      if (stores.isExpired(row)) throw new InvalidRequestError(`Vector store '${row.id}' has expired.`, 'vector_store_id');
    }
    const original = Array.isArray(options.query) ? options.query : [options.query];
    const queries = options.rewriteQuery ? await Promise.all(original.map((query) => rewriteQuery(query))) : original;
    if (rows.length === 0) return { search_query: queries, data: [] };
    const data = await index.search(storeIds, { ...options, query: Array.isArray(options.query) ? queries : queries[0]! });
    // Activity is bookkeeping: a search still answers when it cannot be recorded (a full disk).
    const now = nowSeconds();
    for (const row of rows) {
      await repos.stores.touch(row.id, now).catch((error: Error) => {
        log.warn(`could not record activity on vector store ${row.id}: ${error.message}`);
      });
    }
    return { search_query: queries, data };
  }

  /** Resolves true once no file of these stores is `in_progress` (on any process), false after `timeoutMs`. */
  async waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean> {
    const { stores, repos, queue } = this.options;
    for (const id of storeIds) await stores.row(accountId, id);
    const deadline = Date.now() + timeoutMs;
    // While one of the stores' files runs here, counting rows is not needed.
    while (queue.isRunningIn(storeIds) || (await repos.storeFiles.countInProgress(storeIds)) > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      // Woken by a run of this process ending, or after 250 ms (runs of other processes); the listener goes either way.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          queue.events.off('settled', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, 250));
        queue.events.on('settled', done);
      });
    }
    return true;
  }
}
