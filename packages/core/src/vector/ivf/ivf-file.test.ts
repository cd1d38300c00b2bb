import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusteredVectors } from './clustered-vectors';
import { IvfIndex } from './ivf-index';
import { trainCentroids } from './train-centroids';

const dir = mkdtempSync(join(tmpdir(), 'fathom-ivf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the IVF index file', () => {
  // 50-d: rows are padded to 64 floats in memory and written unpadded.
  for (const dimensions of [64, 50]) {
    it(`gives back the same answers after save and load (${dimensions}-d), and leaves no temporary file`, () => {
      const data = clusteredVectors({ count: 5_000, dimensions, topics: 20, noise: 0.6, queries: 20, seed: 3 });
      const index = new IvfIndex({ dimensions, centroids: trainCentroids(data.vectors, { dimensions, lists: 70 }), blockRows: 32 });
      index.add(
        Array.from({ length: 5_000 }, (_, i) => 2 ** 40 + i),
        data.vectors,
      );
      index.delete(Array.from({ length: 500 }, (_, i) => 2 ** 40 + i * 7));
      const path = join(dir, `store-${dimensions}.ivf`);
      index.save(path);
      expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
      const loaded = IvfIndex.load(path);
      expect(loaded.count).toBe(4_500);
      expect(loaded.lists).toBe(70);
      expect([...loaded.labels()]).toEqual([...index.labels()]);
      expect(loaded.centroids()).toEqual(index.centroids());
      for (let q = 0; q < 20; q++) {
        const query = data.queries.subarray(q * dimensions, (q + 1) * dimensions);
        expect(loaded.search(query, 8)).toEqual(index.search(query, 8));
      }
      // The loaded index keeps working: a deletion and an add.
      loaded.delete([2 ** 40 + 1]);
      loaded.add([1], data.vectors.subarray(0, dimensions));
      expect(loaded.count).toBe(4_500);
      expect(loaded.search(data.vectors.subarray(0, dimensions), 1)[0]!.label).toBe(1);
    });
  }

  it('refuses a truncated or foreign file with ivf_file_invalid', () => {
    const data = clusteredVectors({ count: 500, dimensions: 16, topics: 5, queries: 1, seed: 1 });
    const index = new IvfIndex({ dimensions: 16, centroids: trainCentroids(data.vectors, { dimensions: 16, lists: 10 }) });
    index.add(
      Array.from({ length: 500 }, (_, i) => i),
      data.vectors,
    );
    const path = join(dir, 'small.ivf');
    index.save(path);
    const whole = readFileSync(path);
    truncateSync(path, whole.length - 100);
    expect(() => IvfIndex.load(path)).toThrow(
      expect.objectContaining({ code: 'ivf_file_invalid', message: expect.stringMatching(/ends early/) }),
    );
    writeFileSync(path, Buffer.from('not an index at all, just text'));
    expect(() => IvfIndex.load(path)).toThrow(expect.objectContaining({ code: 'ivf_file_invalid' }));
  });
});
