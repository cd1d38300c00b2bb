/**
 * Retraining a store's IVF indexes as the store grows (issue 24). An IVF's lists are trained for the vectors it
 * had then (about their square root); a store that switched at 300,000 chunks (the default then) and grew to a million has lists
 * of 1,300 vectors instead of 700, and every search scans them (1.85x the vectors of IVFs trained at 1M). Once
 * a shard holds so many vectors that its lists should be `RETRAIN_GROWTH` times as many, a new IVF is built
 * beside the one serving (trained on a fresh sample, every vector inserted; the old one answers searches and
 * takes writes meanwhile), then, with the store's writes held, caught up from the database and put in the old
 * one's place in the worker, and saved over its file. One shard at a time, so the memory of one shard's IVF is
 * what the retrain adds. A crash at any point loses nothing: the old file stays until the new one is saved
 * over it (written to a temporary file and renamed).
 */
import { catchUpExactly } from './graph-build';
import type { Entry, GraphStoreMeta } from './graph-entry';
import { defaultLists } from './ivf';
import { buildIvfs } from './ivf-build';
import { estimateIvfBytes, IVF_RETRY_AFTER_MS, type IvfSwitchHost } from './ivf-switch';

/** A shard's IVF is retrained once the lists for its vectors are this many times those it has (its vectors 2.25x those it was trained for). */
export const RETRAIN_GROWTH = 1.5;

/** The shard of the store to retrain first, if any: the one whose lists are furthest behind its size. */
export function shardToRetrain(entry: Pick<Entry, 'kinds' | 'ivfLists'>, chunks: number): number | undefined {
  const perShard = chunks / entry.kinds.length;
  let worst: number | undefined;
  entry.kinds.forEach((kind, shard) => {
    const lists = entry.ivfLists?.[shard];
    if (kind !== 'ivf' || !lists || defaultLists(perShard) < RETRAIN_GROWTH * lists) return;
    if (worst === undefined || lists < entry.ivfLists![worst]!) worst = shard;
  });
  return worst;
}

/** Starts retraining one shard of a store served by IVFs when its lists are far behind its size and nothing else runs on it. */
export function startIvfRetrain(host: IvfSwitchHost, storeId: string, entry: Entry, meta: GraphStoreMeta): void {
  if (entry.building || entry.working || host.closing() || entry.kinds.includes('hnsw')) return;
  if (entry.ivfRetryAt !== undefined && performance.now() < entry.ivfRetryAt) return;
  const shard = shardToRetrain(entry, meta.chunk_count);
  if (shard === undefined) return;
  entry.building = true;
  const { log } = host.options();
  const common = host.buildOptions(storeId, meta.dimensions);
  const serving = host.targets(storeId, 'ivf');
  const target = serving[shard]!;
  const next = { ...target, key: `${target.key}:next` };
  const before = entry.ivfLists![shard]!;
  const reason = `its shard ${shard} has grown to about ${Math.round(meta.chunk_count / entry.kinds.length).toLocaleString('en-US')} vectors on ${before.toLocaleString('en-US')} lists; the IVF it has answers until the new one is built`;
  const retrain = (async () => {
    const figures = await buildIvfs({ ...common, targets: [next], embedderId: meta.embedder_id, reason });
    if (host.entry(storeId) !== entry || host.closing()) throw new Error('the store was unloaded or dropped meanwhile');
    await entry.settled;
    const switchStarted = performance.now();
    host.track(storeId, entry, async () => {
      // Writes wait now; the new IVF and the other shards are brought to one generation, then the new one replaces the old.
      const targets = serving.map((each) => (each.shard === shard ? next : each));
      const applied = await catchUpExactly({ ...common, targets, kind: 'IVF' });
      await target.client.replaceIvf(next.key, target.key);
      entry.ivfLists![shard] = figures.lists[0]!;
      entry.bytes[shard] = estimateIvfBytes({ chunk_count: Math.ceil(meta.chunk_count / entry.kinds.length), dimensions: meta.dimensions });
      return { adding: 0, done: Promise.resolve(applied) };
    });
    await entry.settled;
    const heldMs = performance.now() - switchStarted;
    await target.client.flush();
    entry.building = false;
    log.info(
      `The retrained IVF index of ${storeId} (shard ${shard}) serves its searches now: ${figures.vectors.toLocaleString('en-US')} vectors on ${figures.lists[0]!.toLocaleString('en-US')} lists (were ${before.toLocaleString('en-US')}), trained in ${figures.trainSeconds.toFixed(1)} s, built in ${figures.seconds.toFixed(1)} s, writes held ${(heldMs / 1000).toFixed(1)} s.`,
    );
  })()
    .catch(async (error: Error) => {
      entry.building = false;
      entry.ivfRetryAt = performance.now() + IVF_RETRY_AFTER_MS;
      if (!host.closing()) {
        log.warn(
          `The IVF retrain of ${storeId} (shard ${shard}) stopped (${error.message}); its IVF keeps serving it, and a new retrain is tried in ${IVF_RETRY_AFTER_MS / 60_000} minutes at the earliest.`,
        );
        await target.client.drop(next.key).catch(() => undefined);
      }
    })
    .finally(() => host.conversions.delete(retrain));
  host.conversions.add(retrain);
}
