import { describe, expect, it } from 'vitest';
import { graphParameters, searchBeam } from './graph-parameters';

describe('graph parameters', () => {
  it('new graphs: M 16, efConstruction 200 at every size (hnswlib fixes them when a graph is created small)', () => {
    for (const chunks of [600, 100_000, 1_000_000]) expect(graphParameters(chunks)).toEqual({ m: 16, efConstruction: 200 });
  });
});

describe('search beam', () => {
  it("of graphs built by this version: the shard's size / 250, at least 400 and 8 x k", () => {
    const built = { m: 16, efConstruction: 200 };
    expect(searchBeam(100_000, 40, built)).toBe(400); // 50k per shard
    expect(searchBeam(600_000, 40, built)).toBe(1_200); // 300k per shard: recall@8 0.980 measured
    expect(searchBeam(1_000_000, 40, built)).toBe(2_000); // 500k per shard
    expect(searchBeam(1_000_000, 500, built)).toBe(4_000); // follows the results asked for
    expect(searchBeam(1_000_000, 40)).toBe(2_000); // not opened yet: built new, with these parameters
  });

  it('of files built with efConstruction 100 (earlier versions, loaded as they are): the rule they were measured with', () => {
    const earlier = { m: 16, efConstruction: 100 };
    expect(searchBeam(100_000, 40, earlier)).toBe(800);
    expect(searchBeam(1_000_000, 40, earlier)).toBe(4_000);
    expect(searchBeam(100_000, 200, earlier)).toBe(1_600);
  });
});
