/**
 * The IVF index's vectors in one `WebAssembly.Memory`, in fixed-size blocks of rows: a list owns blocks,
 * a freed block is reused before the memory grows. Typed-array views of the memory go stale when it grows
 * (the old `ArrayBuffer` is detached): `floats()` hands out a view of the current buffer.
 */
import { FathomError } from '../../errors';
import { MAX_WASM_PAGES, WASM_PAGE_BYTES } from './dots-kernel';
import { type WasmMemory, wasm } from './wasm-api';

export interface VectorArenaOptions {
  /** Bytes before the first block (the index's scratch and centroids); a multiple of 16. */
  reservedBytes: number;
  /** Bytes of one block (rows per block x padded dimensions x 4). */
  blockBytes: number;
  /** The most the memory may hold, in bytes; default and ceiling 4 GiB (wasm32). */
  maximumBytes?: number;
}

export class VectorArena {
  readonly memory: WasmMemory;
  readonly blockBytes: number;
  readonly #reservedBytes: number;
  readonly #maximumPages: number;
  readonly #free: number[] = [];
  /** Byte offset where the next never-used block starts. */
  #end: number;
  #floats: Float32Array;
  #int8: Int8Array;
  #int16: Int16Array;
  /** The sum of the bytes `touch` read (kept, so no engine drops the reads as unused). */
  touchedSum = 0;

  constructor(options: VectorArenaOptions) {
    this.blockBytes = options.blockBytes;
    this.#reservedBytes = options.reservedBytes;
    this.#maximumPages = Math.min(MAX_WASM_PAGES, Math.floor((options.maximumBytes ?? MAX_WASM_PAGES * WASM_PAGE_BYTES) / WASM_PAGE_BYTES));
    const initial = Math.ceil((options.reservedBytes + options.blockBytes) / WASM_PAGE_BYTES);
    if (initial > this.#maximumPages) throw this.#full(initial * WASM_PAGE_BYTES);
    this.memory = new wasm.Memory({ initial, maximum: this.#maximumPages });
    this.#end = options.reservedBytes;
    this.#floats = new Float32Array(this.memory.buffer);
    this.#int8 = new Int8Array(this.memory.buffer);
    this.#int16 = new Int16Array(this.memory.buffer);
  }

  /** A float view of the whole memory, valid until the next `allocate` or `reserve`. */
  floats(): Float32Array {
    if (this.#floats.buffer !== this.memory.buffer) this.#floats = new Float32Array(this.memory.buffer);
    return this.#floats;
  }

  /** A signed byte view of the whole memory (the 8-bit rows), valid until the next `allocate` or `reserve`. */
  int8(): Int8Array {
    if (this.#int8.buffer !== this.memory.buffer) this.#int8 = new Int8Array(this.memory.buffer);
    return this.#int8;
  }

  /** A 16-bit view of the whole memory (the query as the 8-bit kernel reads it), valid until the next `allocate` or `reserve`. */
  int16(): Int16Array {
    if (this.#int16.buffer !== this.memory.buffer) this.#int16 = new Int16Array(this.memory.buffer);
    return this.#int16;
  }

  /**
   * Reads one byte of each 4 KiB page in `[from, from + bytes)` of the blocks in use, so the pages are mapped before
   * searches need them; answers where the next call starts, or undefined at the end. Loading a file into the
   * memory does not map its pages into the process on every host: on the microVMs this was measured on, the
   * first read of each page after a load cost ~6.5 us (1.3 s for a 780 MB shard), and the first searches after a
   * restart took 10-35 ms instead of ~1 ms, each first in a list.
   */
  touch(from: number, bytes: number): number | undefined {
    const view = new Uint8Array(this.memory.buffer);
    const end = Math.min(from + bytes, this.#end);
    let sum = 0;
    for (let at = from; at < end; at += 4096) sum += view[at]!;
    this.touchedSum += sum;
    return end < this.#end ? end : undefined;
  }

  /** A byte view of `length` bytes at `offset`, valid until the next `allocate` or `reserve`. */
  bytesAt(offset: number, length: number): Uint8Array {
    return new Uint8Array(this.memory.buffer, offset, length);
  }

  /** The byte offset of a block for the caller to own: a freed one, else a new one (the memory grows). */
  allocate(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    this.reserve(1);
    const offset = this.#end;
    this.#end += this.blockBytes;
    return offset;
  }

  /** Gives a block back; the next `allocate` reuses it. */
  release(offset: number): void {
    this.#free.push(offset);
  }

  /**
   * Makes sure `blocks` more can be allocated without failing, growing the memory now (by at least an
   * eighth, so adds do not grow it page by page). Throws `vector_index_full` when the maximum is reached,
   * before anything changed.
   */
  reserve(blocks: number): void {
    const needed = this.#end + Math.max(0, blocks - this.#free.length) * this.blockBytes;
    const have = this.memory.buffer.byteLength;
    if (needed <= have) return;
    const pages = have / WASM_PAGE_BYTES;
    const wanted = Math.ceil(needed / WASM_PAGE_BYTES);
    if (wanted > this.#maximumPages) throw this.#full(needed);
    const grown = Math.min(this.#maximumPages, Math.max(wanted, pages + Math.ceil(pages / 8)));
    try {
      this.memory.grow(grown - pages);
    } catch (cause) {
      throw this.#full(needed, cause);
    }
  }

  /** Blocks in use. */
  get usedBlocks(): number {
    return (this.#end - this.#reservedBytes) / this.blockBytes - this.#free.length;
  }

  /** Bytes the memory holds (what the process pays for it). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  #full(needed: number, cause?: unknown): FathomError {
    const limit = this.#maximumPages * WASM_PAGE_BYTES;
    return new FathomError(
      `The vector index needs ${needed.toLocaleString('en-US')} bytes of memory and may hold at most ${limit.toLocaleString('en-US')} (a WebAssembly memory addresses 4 GiB at most): split the store or lower its size.`,
      { code: 'vector_index_full', status: 503, cause },
    );
  }
}
