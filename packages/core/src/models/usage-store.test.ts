import { afterAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { modelsSchema, SqlUsageRepository, type UsageIncrement, type UsageRepository, UsageStore } from './usage-store';

afterAll(closeTestPostgres);

function rows(db: SqlDatabase) {
  return db.all('SELECT * FROM model_usage ORDER BY account_id, day, model');
}

async function until(check: () => Promise<boolean>) {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(testBackends())('UsageStore on %s', (backend) => {
  it('sums calls per account, UTC day and model, and writes them on the timer', async () => {
    const db = await openTestDatabase(backend, [modelsSchema]);
    const store = new UsageStore(db, { flushIntervalMs: 20 });
    const day = new Date('2026-03-04T23:59:00Z');
    store.record('a', 'x/m', 10, 2, day);
    store.record('a', 'x/m', 5, 1, day);
    store.record('a', 'x/m', 1, 1, new Date('2026-03-05T00:01:00Z'));
    store.record('b', 'x/m', 7, 7, day);
    store.record(undefined, 'x/m', 3, 3, day);
    expect(await rows(db)).toEqual([]);
    await until(async () => (await rows(db)).length === 4);
    expect(await rows(db)).toEqual([
      { account_id: '', day: '2026-03-04', model: 'x/m', requests: 1, prompt_tokens: 3, completion_tokens: 3 },
      { account_id: 'a', day: '2026-03-04', model: 'x/m', requests: 2, prompt_tokens: 15, completion_tokens: 3 },
      { account_id: 'a', day: '2026-03-05', model: 'x/m', requests: 1, prompt_tokens: 1, completion_tokens: 1 },
      { account_id: 'b', day: '2026-03-04', model: 'x/m', requests: 1, prompt_tokens: 7, completion_tokens: 7 },
    ]);
    store.record('a', 'x/m', 1, 0, day);
    expect(await store.list('a', { endDate: '2026-03-04' })).toEqual([
      { date: '2026-03-04', model: 'x/m', requests: 3, prompt_tokens: 16, completion_tokens: 3, total_tokens: 19 },
    ]);
    expect(await store.list('a', { model: 'other/m' })).toEqual([]);
    await store.close();
    await db.close();
  });

  it('adds up the counts of processes sharing the database, and keeps counting across restarts', async () => {
    const db = await openTestDatabase(backend, [modelsSchema]);
    const [one, two] = [new UsageStore(db, { flushIntervalMs: 60_000 }), new UsageStore(db, { flushIntervalMs: 60_000 })];
    for (let i = 0; i < 50; i++) {
      one.record('a', 'v/m', 2, 1);
      two.record('a', 'v/m', 3, 1);
    }
    await Promise.all([one.flush(), two.flush(), one.flush()]);
    await one.close();
    const restarted = new UsageStore(db);
    restarted.record('a', 'v/m', 1, 1);
    expect(await restarted.list('a')).toMatchObject([{ model: 'v/m', requests: 101, prompt_tokens: 251, completion_tokens: 101 }]);
    await Promise.all([two.close(), restarted.close()]);
    await db.close();
  });

  it('keeps the counts of a failed write for the next one', async () => {
    const db = await openTestDatabase(backend, [modelsSchema]);
    const sql = new SqlUsageRepository(db);
    let failures = 1;
    const flaky: UsageRepository = {
      add: async (increments: readonly UsageIncrement[]) => {
        if (failures-- > 0) throw new Error('disk full');
        await sql.add(increments);
      },
      list: (accountId, query) => sql.list(accountId, query),
    };
    const store = new UsageStore(flaky, { flushIntervalMs: 60_000 });
    store.record('a', 'v/m', 4, 4);
    await expect(store.flush()).rejects.toThrow('disk full');
    store.record('a', 'v/m', 1, 1);
    expect(await store.list('a')).toMatchObject([{ requests: 2, prompt_tokens: 5, completion_tokens: 5 }]);
    await store.close();
    await db.close();
  });
});
