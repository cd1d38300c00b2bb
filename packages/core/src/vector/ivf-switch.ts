/**
 * The switch of a large store from HNSW graphs to IVF indexes (issue 24): a store of more than
 * `FATHOM_IVF_ABOVE_CHUNKS` chunks whose shards are still served by graphs gets IVFs built in the background
 * (`buildIvfs`: the graphs answer searches and take writes meanwhile), then, with the store's writes held (as
 * a catch-up holds them), the IVFs are caught up from the database, the shards swapped to them, the graphs
 * dropped, the IVF files and sidecars saved, and only then the graph files deleted: a crash at any point loses
 * nothing (at the next open a usable IVF file wins, else the graphs are used and the build starts again).
 */
import { existsSync } from 'node:fs';
import type { Entry, GraphStoreMeta, StoreGraphsOptions } from './graph-entry';
import { type BuildOptions, catchUpExactly, catchUpGraphs, type GraphWork, type ShardTarget } from './graph-build';
import { paddedDimensions, rowBytes } from './ivf/dots-kernel';
import { buildIvfs, type IvfTarget } from './ivf-build';

/** What the switch needs of `StoreGraphs`. */
export interface IvfSwitchHost {
  options(): StoreGraphsOptions;
  /** IVF builds under way (`close` waits for them). */
  conversions: Set<Promise<void>>;
  closing(): boolean;
  entry(storeId: string): Entry | undefined;
  buildOptions(storeId: string, dimensions: number): BuildOptions;
  targets(storeId: string, kind?: 'hnsw' | 'ivf'): IvfTarget[];
  track(storeId: string, entry: Entry, work: () => Promise<GraphWork>): void;
  removeGraphFiles(storeId: string, shard: number): void;
}

/** After a failed IVF build, the store stays on its graphs this long before a new build is tried (ms). */
export const IVF_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Memory a store's IVFs will hold (bytes): its 8-bit rows (the values padded to 16, then the scale), labels and
 * the label map, plus the arena's growth headroom.
 */
export function estimateIvfBytes(meta: { chunk_count: number; dimensions: number }): number {
  return Math.round(meta.chunk_count * (rowBytes(paddedDimensions(meta.dimensions)) + 8 + 40) * 1.125);
}

/**
 * Starts the build and switch when the store is above the size, still (partly) on graphs, and nothing else runs on
 * it. `meta`: the store's row as the caller read it (`StoreGraphs.hold` has; read here otherwise).
 */
export function startIvfSwitch(
  host: IvfSwitchHost,
  storeId: string,
  entry: Entry,
  meta: GraphStoreMeta | undefined = host.options().meta(storeId),
): void {
  if (entry.building || entry.working || host.closing() || !entry.kinds.includes('hnsw')) return;
  if (entry.ivfRetryAt !== undefined && performance.now() < entry.ivfRetryAt) return;
  if (!meta || meta.chunk_count <= host.options().ivfAboveChunks) return;
  entry.building = true;
  const { log } = host.options();
  const common = host.buildOptions(storeId, meta.dimensions);
  // One shard at a time: its graph is dropped before the next shard's IVF is built, so a conversion holds the
  // store's graphs and one shard's IVF at most (not every IVF beside every graph: 3.5-3.7 GB at 1M).
  const shards = [entry.kinds.indexOf('hnsw')];
  const ivfs = host.targets(storeId, 'ivf').filter((target) => shards.includes(target.shard));
  const which = entry.kinds.length > 1 ? ` (shard ${shards[0]! + 1} of ${entry.kinds.length})` : '';
  const reason = `it has ${meta.chunk_count.toLocaleString('en-US')} chunks, more than ${host.options().ivfAboveChunks.toLocaleString('en-US')}; its graphs answer until the IVF is built`;
  const conversion = (async () => {
    const figures = await buildIvfs({ ...common, targets: ivfs, embedderId: meta.embedder_id, reason });
    if (host.entry(storeId) !== entry || host.closing()) throw new Error('the store was unloaded or dropped meanwhile');
    await entry.settled;
    const switchStarted = performance.now();
    host.track(storeId, entry, async () => {
      // New writes wait; the IVF is made exact for a generation (so it is saved before the graph files go), and
      // the other shards with it (another process may have written): the generation claimed is every shard's.
      const targets = host.targets(storeId).map((target) => ivfs.find((ivf) => ivf.shard === target.shard) ?? target);
      const applied = await catchUpExactly({ ...common, targets, kind: 'IVF' });
      const graphs = host.targets(storeId).filter((target) => shards.includes(target.shard));
      for (const shard of shards) entry.kinds[shard] = 'ivf';
      entry.ivfLists ??= [];
      ivfs.forEach((target, i) => (entry.ivfLists![target.shard] = figures.lists[i]!));
      await Promise.all(graphs.map((target) => target.client.drop(target.key)));
      const perShard = Math.ceil(meta.chunk_count / entry.kinds.length);
      for (const shard of shards) entry.bytes[shard] = estimateIvfBytes({ chunk_count: perShard, dimensions: meta.dimensions });
      return { adding: 0, done: Promise.resolve(applied) };
    });
    await entry.settled;
    const heldMs = performance.now() - switchStarted;
    // Writes and searches go on. The IVF files and sidecars first, then the graph files go (a crash in
    // between: the IVF files win at open; IVFs not saved, their generation unknown: the graph files stay).
    await Promise.all(ivfs.map((target) => target.client.flush()));
    const saved = ivfs.every((target) => existsSync(target.path) && existsSync(`${target.path}.json`));
    if (saved) for (const shard of shards) host.removeGraphFiles(storeId, shard);
    entry.building = false;
    log.info(
      `The IVF index of ${storeId}${which} serves its searches now: ${figures.vectors.toLocaleString('en-US')} vectors, sample ${figures.sample.toLocaleString('en-US')}, trained in ${figures.trainSeconds.toFixed(1)} s, built in ${figures.seconds.toFixed(1)} s, writes held ${(heldMs / 1000).toFixed(1)} s, saved ${((performance.now() - switchStarted - heldMs) / 1000).toFixed(1)} s later.`,
    );
  })()
    .catch(async (error: Error) => {
      entry.building = false;
      // Each attempt reads a sample and trains for tens of seconds at 1M: a failure is retried only after a while.
      entry.ivfRetryAt = performance.now() + IVF_RETRY_AFTER_MS;
      if (!host.closing()) {
        log.warn(
          `The IVF build of ${storeId} stopped (${error.message}); its graphs keep serving it, and a new build is tried in ${IVF_RETRY_AFTER_MS / 60_000} minutes at the earliest.`,
        );
      }
      // IVFs built for nothing are freed, unless the store was opened again meanwhile (its open replaced them).
      const current = host.entry(storeId);
      const abandoned = !current || (current === entry && shards.every((shard) => entry.kinds[shard] === 'hnsw'));
      if (!host.closing() && abandoned) await Promise.all(ivfs.map((target) => target.client.drop(target.key))).catch(() => undefined);
    })
    .finally(() => host.conversions.delete(conversion));
  host.conversions.add(conversion);
}

/**
 * At open: loads each shard's IVF file when usable (the shard is then served by it, and its graph files are
 * deleted); answers the shards behind the database, and, for a store above the size with no graph file left,
 * builds its IVFs straight away (`straight`: the work to track; nothing is searchable before).
 */
export async function openIvfShards(
  host: IvfSwitchHost,
  storeId: string,
  entry: Entry,
  meta: GraphStoreMeta,
): Promise<{ behind: ShardTarget[]; fileGenerations: Array<number | undefined>; straight?: GraphWork }> {
  const { dimensions, embedder_id: embedderId, generation } = meta;
  const common = host.buildOptions(storeId, dimensions);
  const ivfs = host.targets(storeId, 'ivf');
  const found = await Promise.all(
    ivfs.map((target) => target.client.openIvf({ store: target.key, path: target.path, dimensions, embedderId, generation })),
  );
  const behind: ShardTarget[] = [];
  const fileGenerations: Array<number | undefined> = [];
  found.forEach((result, shard) => {
    if (result.state === 'empty') return;
    entry.kinds[shard] = 'ivf';
    entry.bytes[shard] = result.bytes;
    (entry.ivfLists ??= [])[shard] = result.lists ?? 1;
    if (result.state === 'behind') behind.push(ivfs[shard]!);
    fileGenerations[shard] = result.fileGeneration;
    // The IVF file wins (it is saved only once the switch is done): the shard's graph files are stale.
    host.removeGraphFiles(storeId, shard);
  });
  const graphs = host.targets(storeId).filter((target) => entry.kinds[target.shard] === 'hnsw');
  const large = meta.chunk_count > host.options().ivfAboveChunks;
  if (graphs.length && large && graphs.every((target) => !existsSync(target.path))) {
    // No graph to answer meanwhile: the IVFs are built now, and searched once built.
    const targets = graphs.map((target) => ivfs[target.shard]!);
    const figures = await buildIvfs({
      ...common,
      targets,
      embedderId,
      reason: `it has more than ${host.options().ivfAboveChunks.toLocaleString('en-US')} chunks and no index file`,
    });
    targets.forEach((target, i) => {
      entry.kinds[target.shard] = 'ivf';
      (entry.ivfLists ??= [])[target.shard] = figures.lists[i]!;
    });
    host
      .options()
      .log.info(
        `The IVF index of ${storeId} is built (${figures.vectors.toLocaleString('en-US')} vectors in ${figures.seconds.toFixed(1)} s).`,
      );
    const catchUp = await catchUpGraphs({ ...common, targets, kind: 'IVF' });
    return { behind, fileGenerations, straight: { adding: catchUp.adding, done: catchUp.done } };
  }
  return { behind, fileGenerations };
}
