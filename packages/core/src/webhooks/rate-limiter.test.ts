import { afterAll, describe, expect, it } from 'vitest';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { type RateLimiter, SlidingWindowRateLimiter } from './rate-limiter';
import { webhooksSchema } from './schema';
import { SqlRateLimiter } from './sql-rate-limiter';

afterAll(closeTestPostgres);

const START = 1_700_000_000_000;

/** The behaviour every RateLimiter shares, with a clock the test moves. */
function describeRateLimiterConformance(
  name: string,
  make: (now: () => number) => Promise<{ limiter: RateLimiter; close(): Promise<void> }>,
) {
  describe(`${name} conforms to the RateLimiter contract`, () => {
    it('admits `limit` calls in any window of one minute and slides', async () => {
      let now = START;
      const { limiter, close } = await make(() => now);
      const at = async (ms: number) => {
        now = START + ms;
        return limiter.tryAcquire('card', 2);
      };
      expect(await at(0)).toBe(true);
      expect(await at(10_000)).toBe(true);
      expect(await at(20_000)).toBe(false);
      expect(await at(59_999)).toBe(false);
      expect(await at(60_001)).toBe(true);
      expect(await at(60_002)).toBe(false);
      expect(await at(70_001)).toBe(true);
      await close();
    });

    it('keeps one window per key and follows a changed limit', async () => {
      const { limiter, close } = await make(() => START);
      expect(await limiter.tryAcquire('a', 1)).toBe(true);
      expect(await limiter.tryAcquire('a', 1)).toBe(false);
      expect(await limiter.tryAcquire('b', 1)).toBe(true);
      expect(await limiter.tryAcquire('a', 3)).toBe(true);
      expect(await limiter.tryAcquire('a', 3)).toBe(true);
      expect(await limiter.tryAcquire('a', 3)).toBe(false);
      expect(await limiter.tryAcquire('a', 2)).toBe(false);
      // A fractional limit admits while fewer calls than it were admitted.
      expect(await limiter.tryAcquire('c', 1.5)).toBe(true);
      expect(await limiter.tryAcquire('c', 1.5)).toBe(true);
      expect(await limiter.tryAcquire('c', 1.5)).toBe(false);
      await close();
    });
  });
}

describeRateLimiterConformance('SlidingWindowRateLimiter', async (now) => ({
  limiter: new SlidingWindowRateLimiter(now),
  close: async () => {},
}));

for (const backend of testBackends()) {
  describeRateLimiterConformance(`SqlRateLimiter on ${backend}`, async (now) => {
    const db = await openTestDatabase(backend, [webhooksSchema]);
    return { limiter: new SqlRateLimiter(db, { now }), close: () => db.close() };
  });

  describe(`SqlRateLimiter on ${backend} across processes`, () => {
    it('admits at most `limit` calls per window for all processes together, however they race', async () => {
      const db = await openTestDatabase(backend, [webhooksSchema]);
      let now = START;
      const nodes = [
        new SqlRateLimiter(db, { now: () => now }),
        new SqlRateLimiter(db, { now: () => now }),
        new SqlRateLimiter(db, { now: () => now }),
      ];
      const burst = () => Promise.all(Array.from({ length: 30 }, (_, i) => nodes[i % nodes.length]!.tryAcquire('agent_1:card', 7)));
      expect((await burst()).filter(Boolean)).toHaveLength(7);
      now += 30_000;
      expect((await burst()).filter(Boolean)).toHaveLength(0);
      now += 30_001;
      expect((await burst()).filter(Boolean)).toHaveLength(7);
      await db.close();
    });

    it('stores a row per call admitted in a window, not per unit of a huge limit', async () => {
      const db = await openTestDatabase(backend, [webhooksSchema]);
      const limiter = new SqlRateLimiter(db, { now: () => START });
      for (let i = 0; i < 5; i++) expect(await limiter.tryAcquire('generous', 1e9)).toBe(true);
      expect(await db.get('SELECT COUNT(*) AS n FROM webhook_rate_slots')).toEqual({ n: 5 });
      await db.close();
    });
  });
}
