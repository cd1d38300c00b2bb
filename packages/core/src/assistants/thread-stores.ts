/**
 * What assistants need from document storage, as a contract (the composition root wires it to
 * `fathom.files` and `fathom.vectorStores`): check that ids belong to the account when they are saved,
 * and put files attached to messages into the thread's vector store. Each method may answer
 * synchronously or with a promise.
 */
export interface ThreadStores {
  /** Throws a 404 `NotFoundError` naming `param` for the first store id that is not the account's. */
  checkStores(accountId: string, storeIds: readonly string[], param: string): Promise<void> | void;
  /** Throws a 404 `NotFoundError` naming `param` for the first file id that is not the account's. */
  checkFiles(accountId: string, fileIds: readonly string[], param: string): Promise<void> | void;
  /** Creates a vector store of the account holding these files (ingestion starts); answers its id. */
  createStore(accountId: string, input: { name: string; fileIds: readonly string[] }): Promise<string> | string;
  /** Adds files to a store of the account (ingestion starts; files already there are left as they are). */
  addFiles(accountId: string, storeId: string, fileIds: readonly string[]): Promise<void> | void;
}
