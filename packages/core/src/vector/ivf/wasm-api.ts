/**
 * The part of the WebAssembly JavaScript API the IVF index uses. Node has it as a global; the project's
 * type libraries (ES2023 and @types/node 20, no DOM) do not declare it, so it is typed here.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  /** Grows by `pages` of 64 KiB; throws a RangeError when the maximum or the system refuses. */
  grow(pages: number): number;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
