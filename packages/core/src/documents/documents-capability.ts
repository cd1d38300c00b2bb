import type { SearchHit, StoreSearcher, StoreSearchOptions } from '../vector';
import { DocumentsCore, type DocumentsCoreOptions } from './documents-core';
import { DocumentFileContents } from './file-contents';
import { Files } from './files';
import { lexicalRewrite, type QueryRewriter } from './query-rewrite';
import { StoreSearch } from './store-search';
import { VectorStores } from './vector-stores';

export interface DocumentsOptions extends DocumentsCoreOptions {
  /** Rewrites queries of `rewrite_query: true` (a chat model); default: the lexical rewrite. */
  rewriteQuery?: QueryRewriter;
}

/**
 * The documents capability as the composition root wires it: the sub-resources an app uses
 * (`files`, `vectorStores`), the contracts other capabilities use (`StoreSearcher` for assistants and
 * `/v1/responses`, which this object is; `fileContents` for Responses inputs; `files` and
 * `vectorStores` for thread stores), and the background work (`start`, `close`). Internal: not
 * exported from the package.
 */
export class DocumentsCapability implements StoreSearcher {
  readonly core: DocumentsCore;
  readonly files: Files;
  readonly vectorStores: VectorStores;
  readonly fileContents: DocumentFileContents;
  private readonly searching: StoreSearch;

  constructor(options: DocumentsOptions) {
    this.core = new DocumentsCore(options);
    this.searching = new StoreSearch(this.core, options.rewriteQuery ?? (async (query) => lexicalRewrite(query)));
    this.files = new Files(this.core);
    this.vectorStores = new VectorStores(this.core, this.searching);
    this.fileContents = new DocumentFileContents(this.files, this.core.ingestor);
  }

  search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    return this.searching.search(accountId, storeIds, options);
  }

  waitForIngestion(accountId: string, storeIds: string[], timeoutMs: number): Promise<boolean> {
    return this.searching.waitForIngestion(accountId, storeIds, timeoutMs);
  }

  /** Starts the ingestion queue (files left `in_progress` by a stop or crash are finished) and the periodic sweep. */
  start(): void {
    this.core.start();
  }

  close(): Promise<void> {
    return this.core.close();
  }
}
