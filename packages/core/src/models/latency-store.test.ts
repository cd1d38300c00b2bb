import { afterAll, describe, expect, it } from 'vitest';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { LatencyStore, latencyBucket, modelLatencySchema, quantileOf } from './latency-store';

afterAll(closeTestPostgres);

describe('latency percentiles from log buckets', () => {
  it('are within one bucket (4.4%) of the exact nearest-rank percentile', () => {
    const durations = Array.from({ length: 1000 }, (_, index) => 3 + index * 7.3);
    const histogram = new Map<number, number>();
    for (const ms of durations) histogram.set(latencyBucket(ms), (histogram.get(latencyBucket(ms)) ?? 0) + 1);
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = durations[Math.ceil(q * durations.length) - 1]!;
      expect(Math.abs(quantileOf([...histogram], q) - exact) / exact).toBeLessThan(0.045);
    }
    expect(quantileOf([[latencyBucket(0.2), 3]], 0.5)).toBeLessThanOrEqual(1);
  });
});

describe.each(testBackends())('LatencyStore on %s', (backend) => {
  it('answers p50 and p95 per account, UTC day and model, adding up the processes sharing the database', async () => {
    const db = await openTestDatabase(backend, [modelLatencySchema]);
    const [one, two] = [new LatencyStore(db, { flushIntervalMs: 60_000 }), new LatencyStore(db, { flushIntervalMs: 60_000 })];
    const day = new Date('2026-03-04T12:00:00Z');
    // 100 calls of 100 ms..199 ms split over two processes; 5 slow ones of 2 s on the next day.
    for (let i = 0; i < 100; i++) (i % 2 ? one : two).record('a', 'x/m', 100 + i, day);
    for (let i = 0; i < 5; i++) one.record('a', 'x/m', 2000, new Date('2026-03-05T00:00:01Z'));
    one.record('b', 'x/m', 10, day);
    one.record(undefined, 'x/m', 10, day);
    await two.flush();
    const rows = await one.list('a');
    expect(rows.map(({ date, model, requests }) => ({ date, model, requests }))).toEqual([
      { date: '2026-03-04', model: 'x/m', requests: 100 },
      { date: '2026-03-05', model: 'x/m', requests: 5 },
    ]);
    expect(rows[0]!.p50_ms).toBeGreaterThan(149 * 0.956);
    expect(rows[0]!.p50_ms).toBeLessThan(149 * 1.045);
    expect(rows[0]!.p95_ms).toBeGreaterThan(194 * 0.956);
    expect(rows[0]!.p95_ms).toBeLessThan(194 * 1.045);
    expect(rows[1]!.p50_ms).toBeCloseTo(2000, -2);
    expect(await one.list('a', { startDate: '2026-03-05' })).toHaveLength(1);
    expect(await one.list('a', { model: 'y/m' })).toEqual([]);
    expect(await one.list('b')).toMatchObject([{ requests: 1 }]);
    await Promise.all([one.close(), two.close()]);
    await db.close();
  });
});
