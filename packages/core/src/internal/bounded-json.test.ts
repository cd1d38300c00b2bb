import { describe, expect, it } from 'vitest';
import { formatJsonBounded } from './bounded-json';

describe('formatJsonBounded', () => {
  it('writes exactly what JSON.stringify(value, null, 2) writes when the value fits', () => {
    for (const value of [
      { order: { id: 'o-1', total: 9.5, tags: [], meta: {} }, items: [{ sku: 'A1', qty: 2 }, null, true, 'x"y\n'] },
      [],
      {},
      'text',
      42,
      null,
      [[[1]], { a: [{ b: { c: [] } }] }],
      { skipped: undefined, kept: 1 },
    ]) {
      expect(formatJsonBounded(value, 10_000)).toEqual({ text: JSON.stringify(value, null, 2), truncated: false });
    }
  });

  it('stops at the size given and says so', () => {
    const big = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
    const result = formatJsonBounded(big, 1_000);
    expect(result.truncated).toBe(true);
    expect(result.text).toHaveLength(1_000);
    expect(JSON.stringify(big, null, 2).startsWith(result.text)).toBe(true);
  });

  it('lays out a 100,000-deep value without overflowing the stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const result = formatJsonBounded(deep, 50_000);
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBe(50_000);
  });
});
