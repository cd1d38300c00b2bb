/**
 * Requests in flight per upstream, shared by every batch a process runs: `FATHOM_BATCH_CONCURRENCY` bounds
 * one batch's requests and, through this, all batches' requests to one upstream together (four batches to
 * one provider do not send four times the concurrency). Waiters are served first come, first served; a
 * waiter whose signal aborts leaves the line.
 */
export class UpstreamSlots {
  readonly #limit: number;
  readonly #busy = new Map<string, number>();
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /** Runs `fn` once `upstream` has a free slot, and frees the slot when `fn` settles. */
  async run<T>(upstream: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    await this.#acquire(upstream, signal);
    try {
      return await fn();
    } finally {
      this.#release(upstream);
    }
  }

  /** Requests running now for `upstream` (for tests and gauges). */
  inFlight(upstream: string): number {
    return this.#busy.get(upstream) ?? 0;
  }

  #acquire(upstream: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const busy = this.#busy.get(upstream) ?? 0;
    if (busy < this.#limit) {
      this.#busy.set(upstream, busy + 1);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const queue = this.#waiting.get(upstream) ?? [];
      this.#waiting.set(upstream, queue);
      const onAbort = () => {
        const index = queue.indexOf(grant);
        if (index !== -1) queue.splice(index, 1);
        if (queue.length === 0) this.#waiting.delete(upstream);
        reject(signal.reason);
      };
      // Called by #release with the slot already counted for this waiter.
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
    });
  }

  #release(upstream: string): void {
    const queue = this.#waiting.get(upstream);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.#waiting.delete(upstream);
    // The slot passes straight to the next waiter: the count stays the same.
    if (next) {
      next();
      return;
    }
    const busy = (this.#busy.get(upstream) ?? 1) - 1;
    if (busy > 0) this.#busy.set(upstream, busy);
    else this.#busy.delete(upstream);
  }
}

/** The upstream a request line goes to: the vendor of its `<vendor>/<model>` (the whole name when it has none). */
export function upstreamOf(body: unknown): string {
  const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  if (typeof model !== 'string') return '';
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : model;
}
