import { describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { loadConfig } from '../config';
import { openDatabase } from '../db';
import { silentLogger } from '../internal/logger';
import { JobEngine } from './job-engine';
import { jobsSchema } from './schema';
import type { ToolRunOptions, ToolSource } from './types';

function setup(source: ToolSource, settings: Record<string, number> = {}) {
  const db = openDatabase({ schemas: [accountsSchema, jobsSchema] });
  const accounts = new Accounts(db);
  const { account } = accounts.create({ name: 'a', balance: 10 });
  const make = () =>
    new JobEngine({
      db,
      config: loadConfig({}),
      accounts,
      log: silentLogger,
      sources: { maps: source },
      settings: { sweepMs: 20, ...settings },
    });
  return { db, accounts, account, make };
}

const input = { query: 'bakery', location: 'Berlin' };

describe('JobEngine', () => {
  it('caps the charge at the ceiling and settles exactly once', async () => {
    const { accounts, account, make } = setup({ name: 'greedy', run: async () => ({ items: [{ type: 'place', value: 'A' }], cost: 99 }) });
    const engine = make();
    engine.start();
    const job = engine.startJob(account.id, 'maps', input);
    expect(job.status).toBe('queued');
    const done = await engine.waitForJob(account.id, job.job_id);
    expect(done).toMatchObject({ status: 'succeeded', cost: 2 });
    expect(accounts.settle(account.id, job.job_id, 1)).toBe(false);
    expect(accounts.get(account.id).balance).toBe(8);
    expect(accounts.ledgerSum(account.id)).toBe(8);
    await engine.close();
  });

  it('queues a job interrupted by close() again, without using an attempt; the next start re-runs it and bills once', async () => {
    let calls = 0;
    const source: ToolSource = {
      name: 'slow-then-fast',
      run: ({ signal }: ToolRunOptions) =>
        ++calls === 1
          ? new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
          : Promise.resolve({ items: [], cost: 0.5 }),
    };
    const { db, accounts, account, make } = setup(source);
    const first = make();
    first.start();
    const job = first.startJob(account.id, 'maps', input);
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.close();
    expect(db.prepare('SELECT status, attempts FROM tool_jobs WHERE id = ?').get(job.job_id)).toEqual({ status: 'queued', attempts: 0 });
    const second = make();
    second.start();
    expect(await second.waitForJob(account.id, job.job_id)).toMatchObject({ status: 'succeeded', cost: 0.5 });
    expect(calls).toBe(2);
    expect(accounts.get(account.id).balance).toBe(9.5);
    const kinds = (db.prepare('SELECT kind FROM ledger WHERE ref = ? ORDER BY id').all(job.job_id) as Array<{ kind: string }>).map(
      (row) => row.kind,
    );
    expect(kinds).toEqual(['reserve', 'release', 'charge']);
    await second.close();
  });

  it('runs the provider again when the cache TTL is 0', async () => {
    let calls = 0;
    const { account, make } = setup({ name: 'count', run: async () => ({ items: [], cost: ++calls * 0 }) }, { cacheTtlSeconds: 0 });
    const engine = make();
    engine.start();
    await engine.waitForJob(account.id, engine.startJob(account.id, 'maps', input).job_id);
    const again = await engine.waitForJob(account.id, engine.startJob(account.id, 'maps', input).job_id);
    expect(again.cached).toBe(false);
    expect(calls).toBe(2);
    await engine.close();
  });

  it('answers from cache within the TTL and calls the provider again after it', async () => {
    let calls = 0;
    const { account, make } = setup(
      { name: 'count', run: async () => ({ items: [{ type: 'place', value: `call ${++calls}` }], cost: 0.1 }) },
      { cacheTtlSeconds: 0.2 },
    );
    const engine = make();
    engine.start();
    await engine.waitForJob(account.id, engine.startJob(account.id, 'maps', input).job_id);
    const hit = await engine.waitForJob(account.id, engine.startJob(account.id, 'maps', { ...input, query: 'BAKERY' }).job_id);
    expect(hit).toMatchObject({ cached: true, cost: 0, result: { items: [{ value: 'call 1' }] } });
    await new Promise((resolve) => setTimeout(resolve, 250));
    const miss = await engine.waitForJob(account.id, engine.startJob(account.id, 'maps', input).job_id);
    expect(miss).toMatchObject({ cached: false, cost: 0.1, result: { items: [{ value: 'call 2' }] } });
    await engine.close();
  });

  it('reports each tool as available or not in its catalog', () => {
    const { make } = setup({ name: 'x', run: async () => ({ items: [], cost: 0 }) });
    const catalog = make().catalog();
    expect(catalog).toHaveLength(10);
    expect(catalog.find((tool) => tool.name === 'maps')!.available).toBe(true);
    expect(catalog.find((tool) => tool.name === 'pronet-jobs')!.available).toBe(false);
    expect(catalog.find((tool) => tool.name === 'website-contacts')!.available).toBe(false); // no egress guard given
  });
});
