import { copyFileSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { HnswSearchResult, IvfOpenResult, IvfSidecar } from './hnsw-protocol';
import { IvfIndex, trainCentroids } from './ivf';
import { clusteredVectors } from './ivf/clustered-vectors';
import { IvfShards } from './ivf-shards';

const dir = mkdtempSync(join(tmpdir(), 'fathom-ivf-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dimensions = 32;
const data = clusteredVectors({ count: 4_000, dimensions, topics: 20, noise: 0.5, queries: 10, seed: 4 });
const whole = new IvfIndex({ dimensions, centroids: trainCentroids(data.vectors, { dimensions, lists: 40 }) });
whole.add(
  Array.from({ length: 4_000 }, (_, i) => i + 1),
  data.vectors,
);
const query = (q: number) => data.queries.slice(q * dimensions, (q + 1) * dimensions);

/** An IVF file with its sidecar at `name`, as a shard worker saves them. */
function savedShard(name: string): string {
  const path = join(dir, name);
  whole.save(path);
  const sidecar: IvfSidecar = { generation: 3, dimensions, embedderId: 'e', lists: whole.lists, nprobe: whole.nprobe, count: whole.count };
  writeFileSync(`${path}.json`, JSON.stringify(sidecar));
  return path;
}

/** The worker's request queue (`hnsw-worker.ts`): tasks run one after another. */
let queue: Promise<void> = Promise.resolve();
const shards = new IvfShards((task) => {
  queue = queue.then(task);
});
async function drain(): Promise<void> {
  for (let round = 0; round < 50; round++) {
    await queue;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const open = (store: string, path: string) =>
  shards.handle({ op: 'open-ivf', store, path, dimensions, embedderId: 'e', generation: 3 }) as IvfOpenResult;
const search = (store: string, q: number) => {
  const { labels } = shards.handle({ op: 'search', store, vector: query(q), k: 8, ef: 0 }) as HnswSearchResult;
  return labels;
};

it('answers a search as soon as the file is opened, and reads the rest of the lists in the background', async () => {
  const path = savedShard('a.ivf');
  expect(open('a', path)).toMatchObject({ state: 'current', count: 4_000, lists: 40 });
  // Before the background read ran: the lists the search probes are read for it.
  for (let q = 0; q < 10; q++) expect(search('a', q)).toEqual(whole.search(query(q), 8).map((hit) => hit.label));
  await drain();
  expect([...(shards.handle({ op: 'labels', store: 'a' }) as Float64Array)].sort((x, y) => x - y)).toEqual(
    Array.from({ length: 4_000 }, (_, i) => i + 1),
  );
});

it('fails the requests of a shard whose file could not be read to the end, without stopping the others or saving it', async () => {
  const path = savedShard('b.ivf');
  for (const suffix of ['', '.json']) copyFileSync(`${path}${suffix}`, join(dir, `b-copy.ivf${suffix}`));
  open('b', path);
  // The file is cut short after it was opened (checked whole then): the background read meets its end.
  const size = statSync(path).size;
  truncateSync(path, Math.floor(size / 2));
  await drain();
  expect(() => search('b', 0)).toThrow(/could not be read from its file .*ends early/);
  shards.handle({ op: 'unload', store: 'b' });
  expect(statSync(path).size).toBe(Math.floor(size / 2)); // not saved over with a part of its lists
  // The queue goes on: another shard opens and answers.
  expect(open('c', join(dir, 'b-copy.ivf'))).toMatchObject({ state: 'current' });
  await drain();
  expect(search('c', 1)).toEqual(whole.search(query(1), 8).map((hit) => hit.label));
});
