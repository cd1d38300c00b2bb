import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { instantiateDots, paddedDimensions, queryLimit, rowBytes } from './dots-kernel';
import { DOTS_WASM } from './dots-wasm';
import { wasm } from './wasm-api';

describe('the IVF kernel', () => {
  it('is exactly what dots.wat assembles to (scripts/build-wasm.mjs, same options)', async () => {
    const wabt = await wabtInit();
    const parsed = wabt.parseWat('dots.wat', readFileSync(new URL('./dots.wat', import.meta.url), 'utf8'), { simd: true });
    parsed.resolveNames();
    parsed.validate();
    const bytes = Buffer.from(parsed.toBinary({ write_debug_names: false }).buffer);
    parsed.destroy();
    expect(bytes.toString('base64')).toBe(DOTS_WASM);
  });

  it('computes the same dot products as JavaScript, directly and through a table of runs', () => {
    const dims = paddedDimensions(384);
    const memory = new wasm.Memory({ initial: 64, maximum: 65_536 });
    const kernel = instantiateDots(memory);
    const floats = new Float32Array(memory.buffer);
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
    const rows = 300;
    const base = dims; // the query at 0, the rows after it
    for (let i = 0; i < dims * (rows + 1); i++) floats[i] = random();
    const js = (row: number) => {
      let sum = 0;
      for (let d = 0; d < dims; d++) sum += floats[d]! * floats[base + row * dims + d]!;
      return sum;
    };
    const out = base + rows * dims;
    kernel.dots(0, base * 4, rows, dims, out * 4);
    for (let row = 0; row < rows; row++) expect(Math.abs(floats[out + row]! - js(row))).toBeLessThan(1e-5 * Math.max(1, Math.abs(js(row))));

    // Two runs, rows 10..14 and 200..202, scored in one call into consecutive outputs.
    const table = new Uint32Array(memory.buffer, (out + rows) * 4, 4);
    table.set([(base + 10 * dims) * 4, 5, (base + 200 * dims) * 4, 3]);
    const end = kernel.dotsTable(0, table.byteOffset, 2, dims, out * 4);
    expect(end).toBe((out + 8) * 4);
    const expected = [10, 11, 12, 13, 14, 200, 201, 202].map(js);
    expected.forEach((value, i) => expect(Math.abs(floats[out + i]! - value)).toBeLessThan(1e-5 * Math.max(1, Math.abs(value))));
  });

  it('scores 8-bit rows against an int16 query as JavaScript does, directly and through a table, without overflow at 4,096-d', () => {
    for (const dims of [paddedDimensions(384), 4_096]) {
      const memory = new wasm.Memory({ initial: 256, maximum: 65_536 });
      const kernel = instantiateDots(memory);
      const bytes = rowBytes(dims);
      const rows = 40;
      const q16 = new Int16Array(memory.buffer, 0, dims);
      const base = dims * 2;
      const int8 = new Int8Array(memory.buffer);
      const floats = new Float32Array(memory.buffer);
      let seed = 11;
      const random = () => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
      const limit = queryLimit(dims);
      for (let d = 0; d < dims; d++) q16[d] = Math.round(random() * limit);
      for (let row = 0; row < rows; row++) {
        const at = base + row * bytes;
        // Row 0 is the worst case the bound is for: every value at the extremes, signs matching the query's.
        for (let d = 0; d < dims; d++) int8[at + d] = row === 0 ? (q16[d]! < 0 ? -127 : 127) : Math.round(random() * 127);
        floats[(at + dims) / 4] = 0.5 + row / 100;
      }
      if (dims === 4_096) q16.fill(limit);
      if (dims === 4_096) for (let d = 0; d < dims; d++) int8[base + d] = 127;
      const js = (row: number) => {
        let sum = 0;
        for (let d = 0; d < dims; d++) sum += q16[d]! * int8[base + row * bytes + d]!;
        return sum * floats[(base + row * bytes + dims) / 4]! * 0.001;
      };
      const out = (base + rows * bytes) / 4;
      kernel.dots8(0, base, rows, dims, out * 4, 0.001);
      for (let row = 0; row < rows; row++) expect(floats[out + row]!).toBeCloseTo(js(row), -Math.log10(Math.abs(js(row)) * 1e-6));
      expect(js(0)).toBeGreaterThan(0);
      const table = new Uint32Array(memory.buffer, (out + rows) * 4, 4);
      table.set([base + 3 * bytes, 4, base + 30 * bytes, 2]);
      expect(kernel.dots8Table(0, table.byteOffset, 2, dims, out * 4, 0.001)).toBe((out + 6) * 4);
      [3, 4, 5, 6, 30, 31].forEach((row, i) => expect(floats[out + i]!).toBeCloseTo(js(row), -Math.log10(Math.abs(js(row)) * 1e-6)));
    }
  });
});
