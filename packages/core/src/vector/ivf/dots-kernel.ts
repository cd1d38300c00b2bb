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

/** The floats a row of `dimensions` takes in the kernel's memory. */
export function paddedDimensions(dimensions: number): number {
  return Math.ceil(dimensions / KERNEL_LANES) * KERNEL_LANES;
}
