/**
 * The IVF index's 8-bit rows (issue 24): each stored vector (normalised) becomes `dimensions` int8 values
 * scaled by its own largest magnitude, with that scale as an f32 after them; a query becomes int16 with a
 * scale of its own. The kernel's `dots8` multiplies the two back. Per row the error of a score is about
 * 0.3% of the row's largest value times the square root of the dimensions (~0.002 on 384-d embeddings):
 * the IVF ranks candidates with it, and a search's candidates are scored again exactly from their rows.
 */
import { queryLimit, rowBytes } from './dots-kernel';

/** Writes `source[from .. from + dimensions)` as an 8-bit row at byte `at` (zero-padded to `padded`, then its scale). */
export function writeRow8(
  source: ArrayLike<number>,
  from: number,
  dimensions: number,
  padded: number,
  memory: { int8: Int8Array; floats: Float32Array },
  at: number,
): void {
  const largest = largestMagnitude(source, from, dimensions);
  const scale = largest > 0 ? 127 / largest : 0;
  const { int8, floats } = memory;
  for (let d = 0; d < dimensions; d++) int8[at + d] = Math.round(source[from + d]! * scale);
  int8.fill(0, at + dimensions, at + rowBytes(padded));
  floats[(at + padded) / 4] = largest / 127;
}

/** Writes the query `source[from .. from + dimensions)` as int16 at byte `at` (zero-padded to `padded`); answers its scale. */
export function writeQuery16(
  source: ArrayLike<number>,
  from: number,
  dimensions: number,
  padded: number,
  int16: Int16Array,
  at: number,
): number {
  const limit = queryLimit(padded);
  const largest = largestMagnitude(source, from, dimensions);
  const scale = largest > 0 ? limit / largest : 0;
  const first = at / 2;
  for (let d = 0; d < dimensions; d++) int16[first + d] = Math.round(source[from + d]! * scale);
  int16.fill(0, first + dimensions, first + padded);
  return largest / limit;
}

function largestMagnitude(source: ArrayLike<number>, from: number, dimensions: number): number {
  let largest = 0;
  for (let d = 0; d < dimensions; d++) largest = Math.max(largest, Math.abs(source[from + d]!));
  return largest;
}
