import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db';
import { modelsSchema, UsageStore } from './usage-store';

const dbs: Array<ReturnType<typeof openDatabase>> = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function rows(db: ReturnType<typeof openDatabase>) {
  return db.prepare('SELECT * FROM model_usage ORDER BY account_id, day, model').all();
}

describe('UsageStore', () => {
  it('sums calls per account, UTC day and model, and writes them on the timer', async () => {
    const db = openDatabase({ schemas: [modelsSchema] });
    dbs.push(db);
    const store = new UsageStore(db, { flushIntervalMs: 20 });
    const day = new Date('2026-03-04T23:59:00Z');
    store.record('a', 'x/m', 10, 2, day);
    store.record('a', 'x/m', 5, 1, day);
    store.record('a', 'x/m', 1, 1, new Date('2026-03-05T00:01:00Z'));
    store.record('b', 'x/m', 7, 7, day);
    store.record(undefined, 'x/m', 3, 3, day);
    expect(rows(db)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(rows(db)).toEqual([
      { account_id: '', day: '2026-03-04', model: 'x/m', requests: 1, prompt_tokens: 3, completion_tokens: 3 },
      { account_id: 'a', day: '2026-03-04', model: 'x/m', requests: 2, prompt_tokens: 15, completion_tokens: 3 },
      { account_id: 'a', day: '2026-03-05', model: 'x/m', requests: 1, prompt_tokens: 1, completion_tokens: 1 },
      { account_id: 'b', day: '2026-03-04', model: 'x/m', requests: 1, prompt_tokens: 7, completion_tokens: 7 },
    ]);
    store.record('a', 'x/m', 1, 0, day);
    expect(store.list('a', { endDate: '2026-03-04' })).toEqual([
      { date: '2026-03-04', model: 'x/m', requests: 3, prompt_tokens: 16, completion_tokens: 3, total_tokens: 19 },
    ]);
  });

  it('flushes what is pending on close, and keeps counting across restarts', () => {
    const db = openDatabase({ schemas: [modelsSchema] });
    dbs.push(db);
    const first = new UsageStore(db, { flushIntervalMs: 60_000 });
    first.record('a', 'v/m', 4, 4);
    first.close();
    const second = new UsageStore(db);
    second.record('a', 'v/m', 1, 1);
    expect(second.list('a')).toMatchObject([{ model: 'v/m', requests: 2, prompt_tokens: 5, completion_tokens: 5 }]);
  });
});
