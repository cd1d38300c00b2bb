/**
 * The scoring kernel of the IVF index: `dots.wat` (WebAssembly SIMD), its bytes carried by `dots-wasm.ts`,
 * compiled once per process and instantiated over each index's own memory.
 */
import { DOTS_WASM } from './dots-wasm';
import { type WasmMemory, wasm } from './wasm-api';

/** The kernel's exports, bound to one memory. Addresses are byte offsets in that memory. */
export interface DotsKernel {
  /** `out[i] = dot(q, base + i * dims * 4)` for `i < n`; `dims` a positive multiple of 16. */
  dots(q: number, base: number, n: number, dims: number, out: number): void;
  /** Scores the `entries` runs of the table at `table` (i32 pairs: byte offset, count) into consecutive `out`. */
  dotsTable(q: number, table: number, entries: number, dims: number, out: number): number;
  /**
   * `out[i] = dot(q, row i) * scale of row i * qscale` for `i < n`: the query `dims` int16 at `q`, 8-bit rows of
   * `rowBytes(dims)` from `base` (`dims` int8, then the row's f32 scale).
   */
  dots8(q: number, base: number, n: number, dims: number, out: number, qscale: number): void;
  /** `dotsTable` over 8-bit rows. */
  dots8Table(q: number, table: number, entries: number, dims: number, out: number, qscale: number): number;
}

/** Vectors are padded to a multiple of this many floats: the kernel reads 16 floats per step. */
export const KERNEL_LANES = 16;

/** wasm32 addresses 4 GiB at most: 65,536 pages of 64 KiB. */
export const WASM_PAGE_BYTES = 65_536;
export const MAX_WASM_PAGES = 65_536;

let compiled: object | undefined;

/** The kernel over `memory` (whose maximum must be at most 65,536 pages). */
export function instantiateDots(memory: WasmMemory): DotsKernel {
  compiled ??= new wasm.Module(Buffer.from(DOTS_WASM, 'base64'));
  const instance = new wasm.Instance(compiled, { env: { memory } });
  return instance.exports as unknown as DotsKernel;
}

/** Bytes of an 8-bit row of `padded` dimensions: its int8 values, its f32 scale, zeros to a multiple of 16. */
export function rowBytes(padded: number): number {
  return padded + 16;
}

/**
 * The largest magnitude of the int16 query against 8-bit rows of `padded` dimensions: 32,767, or less when
 * `127 x 32,767 x padded` would pass the kernel's 32-bit sums (above 516 dimensions).
 */
export function queryLimit(padded: number): number {
  return Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * padded)));
}

/** The floats a row of `dimensions` takes in the kernel's memory. */
export function paddedDimensions(dimensions: number): number {
  return Math.ceil(dimensions / KERNEL_LANES) * KERNEL_LANES;
}
