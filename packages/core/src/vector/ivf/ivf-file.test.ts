import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeVersion1File } from '../__fixtures__/ivf-version-1';
import { clusteredVectors } from './clustered-vectors';
import { IvfIndex } from './ivf-index';
import { trainCentroids } from './train-centroids';

const dir = mkdtempSync(join(tmpdir(), 'fathom-ivf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the IVF index file', () => {
  // 50-d: rows are padded to 64 values in memory and written as held.
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

  it('reads a version-1 file (float rows, before the 8-bit rows) and saves it as version 2, a quarter of the bytes of vectors', () => {
    const dimensions = 48;
    const data = clusteredVectors({ count: 2_000, dimensions, topics: 10, queries: 1, seed: 5 });
    const centroids = trainCentroids(data.vectors, { dimensions, lists: 4 });
    const unit = (row: number) => {
      const v = data.vectors.slice(row * dimensions, (row + 1) * dimensions);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const nearest = (row: number) => {
      const v = unit(row);
      let best = 0;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let list = 0; list < 4; list++) {
        const c = centroids.subarray(list * dimensions, (list + 1) * dimensions);
        const norm = Math.hypot(...c);
        const score = v.reduce((sum, x, d) => sum + (x * c[d]!) / norm, 0);
        if (score > bestScore) [best, bestScore] = [list, score];
      }
      return best;
    };
    const members: number[][] = [[], [], [], []];
    for (let row = 0; row < 2_000; row++) members[nearest(row)]!.push(row);
    const path = join(dir, 'version-1.ivf');
    writeVersion1File(
      path,
      dimensions,
      centroids,
      members.map((rows) => {
        const vectors = new Float32Array(rows.length * dimensions);
        rows.forEach((row, i) => vectors.set(unit(row), i * dimensions));
        return { labels: Float64Array.from(rows, (row) => 500 + row), vectors };
      }),
    );
    const oldBytes = readFileSync(path).length;

    const loaded = IvfIndex.load(path);
    expect(loaded.count).toBe(2_000);
    for (let row = 0; row < 2_000; row += 97) {
      const [hit] = loaded.search(data.vectors.subarray(row * dimensions, (row + 1) * dimensions), 1, { nprobe: 4 });
      expect(hit!.label).toBe(500 + row);
      expect(Math.abs(hit!.distance)).toBeLessThan(0.002);
    }
    loaded.save(path);
    const saved = readFileSync(path);
    expect(saved.readUInt32LE(4)).toBe(2);
    // Vectors: 48 values + 16 bytes of scale against 192 bytes of floats; labels stay 8 bytes.
    expect(saved.length).toBe(24 + centroids.byteLength + 4 * 4 + 2_000 * (8 + 48 + 16) + 4);
    expect(saved.length).toBeLessThan(oldBytes * 0.5);
    const again = IvfIndex.load(path);
    const probe = data.vectors.subarray(0, dimensions);
    expect(again.search(probe, 8)).toEqual(loaded.search(probe, 8));
  });

  it('opens without reading the lists: a search reads the lists it probes, anything needing the whole index reads the rest', () => {
    const dimensions = 32;
    const data = clusteredVectors({ count: 6_000, dimensions, topics: 30, noise: 0.5, queries: 30, seed: 11 });
    const index = new IvfIndex({ dimensions, centroids: trainCentroids(data.vectors, { dimensions, lists: 60 }), blockRows: 16 });
    index.add(
      Array.from({ length: 6_000 }, (_, i) => 10 + i),
      data.vectors,
    );
    const path = join(dir, 'lazy.ivf');
    index.save(path);
    const query = (q: number) => data.queries.subarray(q * dimensions, (q + 1) * dimensions);
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();

    // Searches answer from the lists they probe, as the whole index would; the rest stays in the file.
    const opened = IvfIndex.open(path);
    expect(opened.count).toBe(6_000);
    for (let q = 0; q < 5; q++) expect(opened.search(query(q), 8)).toEqual(index.search(query(q), 8));
    expect(opened.complete).toBe(false);
    // In the background: slices of the rest, then the file is closed.
    let slices = 0;
    while (!opened.readMore(0.05)) slices++;
    expect(slices).toBeGreaterThan(1);
    expect(opened.complete).toBe(true);
    expect(openFiles()).toBe(before);
    expect([...opened.labels()].sort()).toEqual([...index.labels()].sort());
    for (let q = 0; q < 30; q++) expect(opened.search(query(q), 8)).toEqual(index.search(query(q), 8));

    // A filtered search, a write, the labels and a save each read the rest first.
    const allowed = new Float64Array([10, 5_000, 20, 5_000 + 20, 4_000, 4_010]);
    const filtered = IvfIndex.open(path);
    expect(filtered.search(query(0), 3, { allowed })).toEqual(index.search(query(0), 3, { allowed }));
    expect(filtered.complete).toBe(true);
    const written = IvfIndex.open(path);
    written.search(query(1), 8);
    expect(written.delete([10, 11, 12])).toBe(3);
    expect(written.count).toBe(5_997);
    expect(written.complete).toBe(true);
    const saved = IvfIndex.open(path);
    saved.search(query(2), 8);
    const copy = join(dir, 'lazy-copy.ivf');
    saved.save(copy);
    expect(readFileSync(copy).equals(readFileSync(path))).toBe(true);
    expect(openFiles()).toBe(before);

    // Closed before it was read whole: the file is let go.
    const closed = IvfIndex.open(path);
    expect(openFiles()).toBe(before + 1);
    closed.close();
    expect(openFiles()).toBe(before);
  });

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
