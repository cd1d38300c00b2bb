import { describe, expect, it } from 'vitest';
import { FathomError } from '../../errors';
import { VectorArena } from './vector-arena';

describe('VectorArena', () => {
  it('reuses a released block before growing', () => {
    const arena = new VectorArena({ reservedBytes: 1024, blockBytes: 4096 });
    const a = arena.allocate();
    const b = arena.allocate();
    expect(a).toBe(1024);
    expect(b).toBe(1024 + 4096);
    arena.release(a);
    expect(arena.usedBlocks).toBe(1);
    expect(arena.allocate()).toBe(a);
    expect(arena.allocate()).toBe(1024 + 2 * 4096);
  });

  it('grows the memory and hands out a fresh view; what was written stays', () => {
    const arena = new VectorArena({ reservedBytes: 0, blockBytes: 64 * 1024 });
    const first = arena.allocate();
    const before = arena.floats();
    before[first / 4] = 1.5;
    const startBytes = arena.bytes;
    const offsets = Array.from({ length: 10 }, () => arena.allocate());
    expect(arena.bytes).toBeGreaterThan(startBytes);
    expect(before.length).toBe(0); // the old view is detached
    const after = arena.floats();
    expect(after[first / 4]).toBe(1.5);
    after[offsets[9]! / 4] = 2.5;
    expect(arena.floats()[offsets[9]! / 4]).toBe(2.5);
  });

  it('refuses with vector_index_full past its maximum, before anything changes', () => {
    const arena = new VectorArena({ reservedBytes: 0, blockBytes: 64 * 1024, maximumBytes: 4 * 64 * 1024 });
    for (let i = 0; i < 4; i++) arena.allocate();
    const error = (() => {
      try {
        arena.reserve(1);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(FathomError);
    expect((error as FathomError).code).toBe('vector_index_full');
    expect((error as FathomError).message).toMatch(/at most 262,144/);
    expect(arena.usedBlocks).toBe(4);
    expect(() => arena.allocate()).toThrow(/4 GiB at most/);
  });

  it('touches the blocks in use slice by slice, ending where they end', () => {
    const arena = new VectorArena({ reservedBytes: 1024, blockBytes: 64 * 1024 });
    for (let i = 0; i < 5; i++) arena.allocate(); // in use: [0, 1024 + 5 x 64 KiB)
    const starts: number[] = [];
    let from: number | undefined = 0;
    while (from !== undefined) {
      starts.push(from);
      from = arena.touch(from, 100_000);
    }
    expect(starts).toEqual([0, 100_000, 200_000, 300_000]);
    expect(arena.touch(300_000, 100_000)).toBeUndefined(); // 328,704 bytes in use
    expect(arena.touch(0, 10 * 1024 * 1024)).toBeUndefined();
  });
});
