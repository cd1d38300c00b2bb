import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { Schema } from '../storage';
import { openTestDatabase } from '../test/postgres';
import { readsAfter, WriteBehind, type WriteBehindOp } from './write-behind';

const NOTES: Schema = {
  component: 'write_behind_test',
  sqlite: ['CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)'],
  postgres: [],
};

async function setup(shareMs: number) {
  const db = await openTestDatabase('sqlite', [NOTES]);
  const writes = new WriteBehind(db, { shareMs });
  const transactions = vi.spyOn(db, 'transaction');
  const committed: string[] = [];
  const note = (text: string): WriteBehindOp => ({
    run: (tx) => tx.run('INSERT INTO notes (text) VALUES (?)', [text]),
    done: (ok) => {
      if (ok) committed.push(text);
    },
  });
  const notes = async () => (await db.all<{ text: string }>('SELECT text FROM notes ORDER BY id')).map((row) => row.text);
  return { db, writes, transactions, committed, note, notes };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the write-behind queue shares one commit among the writes of a window', () => {
  it('writes the calls answered within the window in one transaction, not at the next turn', async () => {
    const { db, writes, transactions, committed, note } = await setup(40);
    writes.enqueue(note('a'), 'shared');
    await nextTurn();
    writes.enqueue(note('b'), 'shared');
    await sleep(5);
    writes.enqueue(note('c'), 'shared');
    await nextTurn();
    expect(committed).toEqual([]);
    expect(transactions).not.toHaveBeenCalled();
    await sleep(80);
    await writes.flush(); // a write in progress (none queued now)
    expect(committed).toEqual(['a', 'b', 'c']);
    expect(transactions).toHaveBeenCalledTimes(1);
    await db.close();
  });

  it('a hold to make durable is written at the next turn, with the shared writes queued before it', async () => {
    const { db, writes, transactions, committed, note } = await setup(60_000);
    writes.enqueue(note('capture'), 'shared');
    writes.enqueue(note('hold'), 'now');
    await nextTurn();
    await nextTurn();
    expect(committed).toEqual(['capture', 'hold']);
    expect(transactions).toHaveBeenCalledTimes(1);
    await db.close();
  });

  it('a read through readsAfter first writes what is queued; a read inside a transaction does not wait for the queue', async () => {
    const { db, writes, note, committed } = await setup(60_000);
    const reads = readsAfter(db, writes);
    writes.enqueue(note('answered'), 'shared');
    // Inside a transaction (as a queued op reads): no flush, so no wait on the queue that may be running it.
    expect(await reads.transaction((tx) => tx.all('SELECT text FROM notes'))).toEqual([]);
    expect(await db.all('SELECT text FROM notes')).toEqual([]);
    expect(await reads.all('SELECT text FROM notes')).toEqual([{ text: 'answered' }]);
    writes.enqueue(note('next'), 'shared');
    expect(await reads.get('SELECT COUNT(*) AS n FROM notes')).toEqual({ n: 2 });
    expect(committed).toEqual(['answered', 'next']);
    await db.close();
  });

  it('one failing write is rolled back alone; drain writes what is queued', async () => {
    const { db, writes, note, notes } = await setup(60_000);
    const outcomes: boolean[] = [];
    writes.enqueue(note('x'), 'shared');
    writes.enqueue({ ...note('x'), done: (ok) => outcomes.push(ok) }, 'shared');
    writes.enqueue(note('y'), 'shared');
    await writes.drain();
    expect(outcomes).toEqual([false]);
    expect(await notes()).toEqual(['x', 'y']);
    expect(writes.pending).toBe(0);
    await db.close();
  });

  it('without a savepoint per op: a failing op rolls back the batch, the others undo what they did in memory and are written again, once each', async () => {
    const { db, writes, transactions, note, notes } = await setup(60_000);
    let inMemory = 0;
    const counted = (text: string): WriteBehindOp => ({
      ...note(text),
      run: async (tx) => {
        inMemory++;
        await note(text).run(tx);
      },
      undo: () => {
        inMemory--;
      },
    });
    writes.enqueue(counted('a'), 'shared');
    await writes.drain();
    // The usual case: one transaction, no savepoint.
    expect(transactions).toHaveBeenCalledTimes(1);
    writes.enqueue(counted('b'), 'shared');
    writes.enqueue(counted('a'), 'shared');
    writes.enqueue(counted('c'), 'shared');
    await writes.drain();
    expect(transactions).toHaveBeenCalledTimes(3);
    expect(await notes()).toEqual(['a', 'b', 'c']);
    // a, b and c ran once for good; the failing a's run was rolled back with its savepoint (its undo is
    // for a batch rolled back, not for its own failure, which `done(false)` hears).
    expect(inMemory).toBe(4);
    await db.close();
  });
});
