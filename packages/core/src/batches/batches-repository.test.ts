import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { type LineResult, NO_USAGE, SqlBatchesRepository } from './batches-repository';
import { batchesSchema } from './schema';

afterAll(closeTestPostgres);

const answered = (customId: string, tokens: number): LineResult => ({
  state: 'completed',
  output: JSON.stringify({ custom_id: customId }),
  usage: { input: tokens, cached: 0, output: 1, reasoning: 0, total: tokens + 1 },
});

const failed = (customId: string): LineResult => ({ state: 'failed', output: JSON.stringify({ custom_id: customId }), usage: NO_USAGE });

describe.each(testBackends())('batches repository on %s', (backend) => {
  async function open() {
    const db = await openTestDatabase(backend, [accountsSchema, batchesSchema]);
    const account = await new Accounts(db).create({ name: 'a' });
    const batches = new SqlBatchesRepository(db);
    const now = Date.now();
    await batches.insert({
      id: 'batch_1',
      account_id: account.id,
      endpoint: '/v1/embeddings',
      input_file_id: 'file-1',
      completion_window: '24h',
      metadata: null,
      output_expires_seconds: null,
      created_ms: now,
      created_at: Math.floor(now / 1000),
      expires_at: Math.floor(now / 1000) + 86_400,
      deadline_ms: now + 86_400_000,
    });
    return { db, batches, accountId: account.id };
  }

  it('gives a batch to one owner at a time, moves it on only for that owner, and never claims a finished one', async () => {
    const { db, batches } = await open();
    const queue = batches.queue();
    const now = Date.now();
    expect((await queue.claim('a', now + 30_000, 5, now)).map((task) => task.id)).toEqual(['batch_1']);
    expect(await queue.claim('b', now + 30_000, 5, now)).toEqual([]);
    expect(await batches.startProgress('batch_1', 'b', 3, 'm', 1)).toBe(false);
    expect(await batches.startProgress('batch_1', 'a', 3, 'm', 1)).toBe(true);
    // The lease ends: another owner takes over, and the first can no longer finish it.
    expect((await queue.claim('b', now + 60_000, 5, now + 31_000)).map((task) => task.id)).toEqual(['batch_1']);
    expect(await batches.finish('batch_1', 'a', 'completed', 2)).toBe(false);
    expect(await batches.finish('batch_1', 'b', 'completed', 2)).toBe(true);
    expect(await queue.claim('c', now + 90_000, 5, now + 120_000)).toEqual([]);
    expect((await batches.get('batch_1'))?.status).toBe('completed');
    expect(await batches.cancel('batch_1', 3)).toBe(false);
    await db.close();
    // The first test of a run also starts the test PostgreSQL: slow on a loaded machine.
  }, 120_000);

  it('counts each line once, with its usage, and reads outputs back in input order', async () => {
    const { db, batches } = await open();
    await batches.markSent('batch_1', 'x', 3);
    await batches.markSent('batch_1', 'y', 1);
    expect(await batches.finishSent('batch_1', 'x', answered('x', 10))).toBe(true);
    expect(await batches.finishSent('batch_1', 'x', answered('x', 10))).toBe(false);
    expect(await batches.recordUnsent('batch_1', 'y', 1, failed('y'))).toBe(false);
    expect(await batches.recordUnsent('batch_1', 'z', 2, failed('z'))).toBe(true);
    expect((await batches.sentLines('batch_1')).map((line) => line.custom_id)).toEqual(['y']);
    expect(await batches.finishSent('batch_1', 'y', answered('y', 5))).toBe(true);
    const row = (await batches.get('batch_1'))!;
    expect([row.completed, row.failed, row.input_tokens, row.output_tokens, row.total_tokens]).toEqual([2, 1, 15, 2, 17]);
    expect((await batches.outputs('batch_1', 'completed', -1, 10)).map((entry) => entry.line)).toEqual([1, 3]);
    expect((await batches.outputs('batch_1', 'completed', 1, 10)).map((entry) => entry.line)).toEqual([3]);
    expect((await batches.outputs('batch_1', 'failed', -1, 10)).map((entry) => entry.output)).toEqual([JSON.stringify({ custom_id: 'z' })]);
    expect([...(await batches.lineStates('batch_1')).entries()].sort()).toEqual([
      ['x', 'completed'],
      ['y', 'completed'],
      ['z', 'failed'],
    ]);
    await db.close();
  });
});
