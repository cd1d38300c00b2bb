interface Waiter {
  key: string;
  capped: boolean;
  start(): void;
}

/**
 * The slots of a shared pool (the extraction threads), handed out fairly between keys (accounts).
 * At most `slots` tasks run at once. A freed slot goes to the key holding the fewest slots, and among
 * those to the one served least recently (round robin; a key's own tasks in order), so one key's long
 * queue delays another key's task by at most the tasks already running — never by its whole queue. A `capped` task (work a request waits for) starts
 * only while its key holds fewer than `perKey` slots, so one key cannot occupy every slot with it.
 */
export class FairSlots {
  readonly #slots: number;
  readonly #perKey: number;
  readonly #running = new Map<string, number>();
  readonly #waiting: Waiter[] = [];
  /** When each key with work running or waiting was last given a slot (a turn counter). */
  readonly #served = new Map<string, number>();
  #turn = 0;
  #busy = 0;

  constructor(slots: number, perKey = Math.max(1, slots - 1)) {
    this.#slots = Math.max(1, slots);
    this.#perKey = Math.max(1, perKey);
  }

  /** Tasks running now (for tests and logs). */
  get busy(): number {
    return this.#busy;
  }

  /**
   * Resolves with a release function once `key` may run a task; rejects with the signal's reason if it
   * aborts while waiting.
   */
  acquire(key: string, options: { capped?: boolean; signal?: AbortSignal } = {}): Promise<() => void> {
    options.signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        capped: options.capped ?? false,
        start: () => {
          options.signal?.removeEventListener('abort', onAbort);
          resolve(this.#take(key));
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        this.#forgetIdle(key);
        reject(options.signal!.reason);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#dispatch();
    });
  }

  #take(key: string): () => void {
    this.#busy++;
    this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
    this.#served.set(key, ++this.#turn);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
      const left = (this.#running.get(key) ?? 1) - 1;
      if (left > 0) this.#running.set(key, left);
      else this.#running.delete(key);
      this.#forgetIdle(key);
      this.#dispatch();
    };
  }

  /** Drops what is kept of a key with nothing running or waiting (the map stays as small as the active keys). */
  #forgetIdle(key: string): void {
    if (!this.#running.has(key) && !this.#waiting.some((waiter) => waiter.key === key)) this.#served.delete(key);
  }

  #dispatch(): void {
    while (this.#busy < this.#slots) {
      let best = -1;
      let bestHeld = Number.POSITIVE_INFINITY;
      let bestServed = Number.POSITIVE_INFINITY;
      for (const [index, waiter] of this.#waiting.entries()) {
        const held = this.#running.get(waiter.key) ?? 0;
        if (waiter.capped && held >= this.#perKey) continue;
        const served = this.#served.get(waiter.key) ?? 0;
        // The oldest waiter of the key holding the fewest slots, served least recently among those.
        if (held < bestHeld || (held === bestHeld && served < bestServed)) {
          bestHeld = held;
          bestServed = served;
          best = index;
        }
      }
      if (best < 0) return;
      const [waiter] = this.#waiting.splice(best, 1);
      waiter!.start();
    }
  }
}
