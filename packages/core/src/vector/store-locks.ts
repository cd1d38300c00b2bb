/** Per-store ordering of mutations: a store's mutations never interleave; different stores run side by side. */
export class StoreLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of the same store (a failed one does not stop the next). */
  exclusive<T>(storeId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(storeId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(task);
    const settled = run.catch(() => undefined);
    this.tails.set(storeId, settled);
    void settled.then(() => {
      if (this.tails.get(storeId) === settled) this.tails.delete(storeId);
    });
    return run;
  }

  /** Whether a task of the store is running or waiting. */
  isBusy(storeId: string): boolean {
    return this.tails.has(storeId);
  }

  /** Settles when every task started so far has. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.tails.values()]);
  }
}
