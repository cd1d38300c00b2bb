/**
 * A failed IVF build is not retried on every use of the store (issue 24): each attempt reads a training sample
 * and trains for tens of seconds at 1M, and `StoreGraphs.hold` starts the switch on every search and write.
 */
import { describe, expect, it } from 'vitest';
import { type Logger, silentLogger } from '../internal/logger';
import type { Entry, StoreGraphsOptions } from './graph-entry';
import type { GraphSource } from './graph-build';
import { IVF_RETRY_AFTER_MS, type IvfSwitchHost, startIvfSwitch } from './ivf-switch';

describe('the IVF switch after a failed build', () => {
  it('keeps the store on its graphs and starts no new build before the retry time', async () => {
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    let attempts = 0;
    // The build's first read fails, as a database error or a training worker that cannot start would.
    const source = {
      ids: () => {
        attempts++;
        throw new Error('disk I/O error');
      },
    } as unknown as GraphSource;
    const meta = { dimensions: 8, generation: 1, chunk_count: 2_000, embedder_id: 'hash' };
    const options = { log, ivfAboveChunks: 1_000, meta: () => meta } as unknown as StoreGraphsOptions;
    const conversions = new Set<Promise<void>>();
    const entry = { kinds: ['hnsw', 'hnsw'], building: false, working: false } as unknown as Entry;
    const host: IvfSwitchHost = {
      options: () => options,
      conversions,
      closing: () => false,
      entry: () => entry,
      buildOptions: (storeId, dimensions) => ({ source, log, storeId, dimensions, shards: 2, progressIntervalMs: 10_000 }),
      targets: () => [],
      track: () => undefined,
      removeGraphFiles: () => undefined,
    };

    startIvfSwitch(host, 'vs_large', entry);
    await Promise.all([...conversions]);
    expect(attempts).toBe(1);
    expect(entry.building).toBe(false);
    expect(entry.kinds).toEqual(['hnsw', 'hnsw']);
    expect(warnings).toEqual([
      `The IVF build of vs_large stopped (disk I/O error); its graphs keep serving it, and a new build is tried in ${IVF_RETRY_AFTER_MS / 60_000} minutes at the earliest.`,
    ]);

    // The next uses of the store do not start another build…
    for (let use = 0; use < 5; use++) startIvfSwitch(host, 'vs_large', entry);
    await Promise.all([...conversions]);
    expect(attempts).toBe(1);

    // …until the retry time has passed.
    entry.ivfRetryAt = performance.now() - 1;
    startIvfSwitch(host, 'vs_large', entry);
    await Promise.all([...conversions]);
    expect(attempts).toBe(2);
  });
});
