/**
 * A first-in first-out async lock. `busy` is true while someone holds it or waits for it, so a caller
 * that only needs to wait when the lock is contended can skip the await entirely on the fast path.
 */
export class Turnstile {
  #tail: Promise<void> = Promise.resolve();
  #holders = 0;

  get busy(): boolean {
    return this.#holders > 0;
  }

  /** Resolves with a release function once every earlier holder has released. */
  acquire(): Promise<() => void> {
    this.#holders++;
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = () => {
        this.#holders--;
        resolve();
      };
    });
    return previous.then(() => once(release));
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
