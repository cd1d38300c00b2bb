import { afterAll, describe, expect, it } from 'vitest';
import type { Schema } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { addCounters, BufferedCounters, type CounterTable } from './buffered-counters';

afterAll(closeTestPostgres);

const schema: Schema = {
  component: 'counters_test',
  sqlite: [
    'CREATE TABLE counters_test (name TEXT NOT NULL, n INTEGER NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY (name, n))',
  ],
  postgres: [
    'CREATE TABLE counters_test (name TEXT NOT NULL, n INTEGER NOT NULL, a BIGINT NOT NULL, b BIGINT NOT NULL, PRIMARY KEY (name, n))',
  ],
};
const TABLE: CounterTable<'name' | 'n', 'a' | 'b'> = { table: 'counters_test', keys: ['name', 'n'], counts: ['a', 'b'] };

describe.each(testBackends())('BufferedCounters on %s', (backend) => {
  it('sums increments per row in memory, writes one upsert per row, and adds to what is stored', async () => {
    const db = await openTestDatabase(backend, [schema]);
    await addCounters(db, TABLE, [{ name: 'x', n: 1, a: 10, b: 0 }]);
    const writes: number[] = [];
    const counters = new BufferedCounters(
      TABLE,
      async (rows) => {
        writes.push(rows.length);
        await addCounters(db, TABLE, rows);
      },
      { flushIntervalMs: 60_000, what: 'test counts' },
    );
    for (let i = 0; i < 100; i++) counters.add({ name: 'x', n: 1, a: 1, b: 2 });
    counters.add({ name: 'x', n: 2, a: 5, b: 5 });
    counters.add({ name: 'x,1', n: 1, a: 7, b: 7 });
    await counters.flush();
    await counters.flush();
    expect(writes).toEqual([3]);
    expect(await db.all('SELECT name, n, a, b FROM counters_test ORDER BY name, n')).toEqual([
      { name: 'x', n: 1, a: 110, b: 200 },
      { name: 'x', n: 2, a: 5, b: 5 },
      { name: 'x,1', n: 1, a: 7, b: 7 },
    ]);
    await counters.close();
    await db.close();
  });

  it('keeps the increments of a failed write, merged with later ones, for the next write', async () => {
    const db = await openTestDatabase(backend, [schema]);
    let failures = 1;
    const counters = new BufferedCounters(
      TABLE,
      async (rows) => {
        if (failures-- > 0) throw new Error('disk full');
        await addCounters(db, TABLE, rows);
      },
      { flushIntervalMs: 60_000, what: 'test counts' },
    );
    counters.add({ name: 'y', n: 0, a: 1, b: 1 });
    await expect(counters.flush()).rejects.toThrow('disk full');
    counters.add({ name: 'y', n: 0, a: 2, b: 0 });
    await counters.close();
    expect(await db.all('SELECT name, n, a, b FROM counters_test')).toEqual([{ name: 'y', n: 0, a: 3, b: 1 }]);
    await db.close();
  });
});
