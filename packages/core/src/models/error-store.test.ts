import { afterAll, describe, expect, it } from 'vitest';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { ErrorStore, requestErrorsSchema } from './error-store';

afterAll(closeTestPostgres);

describe.each(testBackends())('ErrorStore on %s', (backend) => {
  it('counts error answers per account, UTC day, status and code, adding up the processes sharing the database', async () => {
    const db = await openTestDatabase(backend, [requestErrorsSchema]);
    const [one, two] = [new ErrorStore(db, { flushIntervalMs: 60_000 }), new ErrorStore(db, { flushIntervalMs: 60_000 })];
    const day = new Date('2026-03-04T12:00:00Z');
    for (let i = 0; i < 3; i++) (i % 2 ? one : two).record('a', 400, 'invalid_request_error', day);
    one.record('a', 502, 'upstream_error', day);
    one.record('a', 502, 'upstream_error', new Date('2026-03-05T00:00:01Z'));
    one.record('a', 500, null, day);
    // Not errors, or another account's: not in `a`'s answer.
    one.record('a', 200, null, day);
    one.record('a', 304, null, day);
    one.record('b', 404, 'not_found', day);
    await two.flush();
    expect(await one.list('a')).toEqual([
      { date: '2026-03-04', status: 400, code: 'invalid_request_error', requests: 3 },
      { date: '2026-03-04', status: 500, code: null, requests: 1 },
      { date: '2026-03-04', status: 502, code: 'upstream_error', requests: 1 },
      { date: '2026-03-05', status: 502, code: 'upstream_error', requests: 1 },
    ]);
    expect(await one.list('a', { startDate: '2026-03-05' })).toHaveLength(1);
    expect(await one.list('a', { endDate: '2026-03-04' })).toHaveLength(3);
    expect(await two.list('b')).toEqual([{ date: '2026-03-04', status: 404, code: 'not_found', requests: 1 }]);
    await Promise.all([one.close(), two.close()]);
    await db.close();
  });

  it('writes on its timer, without a read', async () => {
    const db = await openTestDatabase(backend, [requestErrorsSchema]);
    const store = new ErrorStore(db, { flushIntervalMs: 20 });
    store.record('a', 429, 'rate_limit_exceeded');
    const deadline = Date.now() + 5000;
    while ((await db.all('SELECT * FROM request_errors')).length === 0) {
      if (Date.now() > deadline) throw new Error('not written in time');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await db.all('SELECT status, code, requests FROM request_errors')).toEqual([
      { status: 429, code: 'rate_limit_exceeded', requests: 1 },
    ]);
    await store.close();
    await db.close();
  });
});
