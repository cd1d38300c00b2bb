import { decompressedMessage, ExtractionError } from './extraction-error';

/** Allocations of at least this many bytes check the thread's ArrayBuffer memory at once. */
const LARGE = 1024 * 1024;
/** Smaller ones are added up and checked every this many bytes. */
const CHECK_EVERY = 8 * 1024 * 1024;

const TYPED_ARRAYS = [
  'Uint8Array',
  'Uint8ClampedArray',
  'Int8Array',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
] as const;

/**
 * A cap on the ArrayBuffer memory of the extraction worker thread. `resourceLimits.maxOldGenerationSizeMb`
 * bounds the V8 heap only; the data a parser decompresses (pdf.js's content and font streams, the parts
 * jszip inflates for mammoth) lives in ArrayBuffers outside it, so a small compressed file could grow a
 * worker far past its cap (2 GB in issue 23). This guard wraps the global typed-array and ArrayBuffer
 * constructors of the worker thread — the ones parsers allocate with — and refuses an allocation that
 * would take the ArrayBuffer memory the parse running added to the thread (`process.memoryUsage()
 * .arrayBuffers` is per thread in a worker) past its cap. A parser that swallows the refusal and goes on still ends
 * `invalid_file` (`check()`): the parse tripped the cap.
 */
export class MemoryGuard {
  #limit = Number.POSITIVE_INFINITY;
  #base = 0;
  #megabytes = 0;
  #pending = 0;
  #tripped = false;

  /** Installs the guard on this thread's globals (once per worker thread). */
  install(): this {
    const scope = globalThis as unknown as Record<string, unknown>;
    for (const name of TYPED_ARRAYS) {
      const original = scope[name] as { BYTES_PER_ELEMENT: number } & (new (...args: unknown[]) => object);
      scope[name] = this.#wrap(original, original.BYTES_PER_ELEMENT);
    }
    scope.ArrayBuffer = this.#wrap(scope.ArrayBuffer as new (...args: unknown[]) => object, 1);
    return this;
  }

  /** Caps the parse about to run at `megabytes` of ArrayBuffers. */
  arm(megabytes: number): void {
    this.#megabytes = megabytes;
    this.#limit = megabytes * 1024 * 1024;
    // Counted from here: what an earlier parse left is garbage the collector frees (typed arrays tell
    // V8 their size, so it collects under their pressure).
    this.#base = process.memoryUsage().arrayBuffers;
    this.#pending = 0;
    this.#tripped = false;
  }

  disarm(): void {
    this.#limit = Number.POSITIVE_INFINITY;
  }

  /** Throws the memory error if an allocation of this parse was refused (even if the parser went on). */
  check(): void {
    if (this.#tripped) throw new ExtractionError('invalid_file', decompressedMessage(this.#megabytes));
  }

  #allocate(bytes: number): void {
    if (!Number.isFinite(this.#limit) || !(bytes > 0)) return;
    this.#pending += bytes;
    if (bytes < LARGE && this.#pending < CHECK_EVERY) return;
    this.#pending = 0;
    if (process.memoryUsage().arrayBuffers - this.#base + bytes > this.#limit) {
      this.#tripped = true;
      throw new ExtractionError('invalid_file', decompressedMessage(this.#megabytes));
    }
  }

  /**
   * A stand-in constructor: `new X(length)` is checked, then built by the original, so instances are
   * the original's (same prototype and hidden class: the parsers' typed-array code stays as fast);
   * `instanceof`, the static methods and `X.prototype` answer as the original's.
   */
  #wrap<T extends new (...args: unknown[]) => object>(original: T, bytesPerElement: number): T {
    const allocate = (bytes: number) => this.#allocate(bytes);
    function Guarded(this: unknown, ...args: unknown[]): object {
      if (!new.target) throw new TypeError(`Constructor ${original.name} requires 'new'`);
      // Only `new X(length)` allocates; views over a buffer and copies of arrays are bounded by their source.
      if (typeof args[0] === 'number') allocate(args[0] * bytesPerElement);
      return Reflect.construct(original, args, new.target === Guarded ? original : new.target);
    }
    Object.setPrototypeOf(Guarded, original);
    Object.defineProperty(Guarded, 'prototype', { value: original.prototype });
    Object.defineProperty(Guarded, 'name', { value: original.name });
    return Guarded as unknown as T;
  }
}
