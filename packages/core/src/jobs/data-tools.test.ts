import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { loadConfig } from '../config';
import { silentLogger } from '../internal/logger';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { createDataTools, type DataToolsCapability } from './create-data-tools';
import { jobsSchema } from './schema';
import type { ToolRunOptions, ToolSource } from './types';

afterAll(closeTestPostgres);

const input = { query: 'bakery', location: 'Berlin' };

describe.each(testBackends())('data tools and their jobs on %s', (backend) => {
  const engines: DataToolsCapability[] = [];

  async function setup(source: ToolSource, settings: Record<string, number> = {}, balance = 10, now?: () => number) {
    const db = await openTestDatabase(backend, [accountsSchema, jobsSchema]);
    const accounts = new Accounts(db);
    const account = await accounts.create({ name: 'a', balance });
    const make = () => {
      const engine = createDataTools({
        db,
        config: loadConfig({ FATHOM_LEASE_SECONDS: '0.3' }),
        accounts,
        log: silentLogger,
        sources: { maps: source },
        settings: { sweepMs: 20, ...settings },
        now,
      });
      engines.push(engine);
      return engine;
    };
    const close = async () => {
      await Promise.all(engines.splice(0).map((engine) => engine.close()));
      await db.close();
    };
    return { db, accounts, account, make, close };
  }

  it('caps the charge at the ceiling and settles exactly once', async () => {
    const { accounts, account, make, close } = await setup({
      name: 'greedy',
      run: async () => ({ items: [{ type: 'place', value: 'A' }], cost: 99 }),
    });
    const engine = make();
    engine.start();
    const job = await engine.jobs.create(account.id, 'maps', input);
    expect(job.status).toBe('queued');
    const done = await engine.jobs.wait(account.id, job.job_id);
    expect(done).toMatchObject({ status: 'succeeded', cost: 2 });
    expect(await accounts.settle(account.id, job.job_id, 1)).toBe(false);
    expect((await accounts.retrieve(account.id)).balance).toBe(8);
    expect(await accounts.ledgerSum(account.id)).toBe(8);
    await close();
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
    const { db, accounts, account, make, close } = await setup(source);
    const first = make();
    first.start();
    const job = await first.jobs.create(account.id, 'maps', input);
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await first.close();
    expect(await db.get('SELECT status, attempts FROM tool_jobs WHERE id = ?', [job.job_id])).toEqual({ status: 'queued', attempts: 0 });
    const second = make();
    second.start();
    expect(await second.jobs.wait(account.id, job.job_id)).toMatchObject({ status: 'succeeded', cost: 0.5 });
    expect(calls).toBe(2);
    expect((await accounts.retrieve(account.id)).balance).toBe(9.5);
    const kinds = (await db.all<{ kind: string }>('SELECT kind FROM ledger WHERE ref = ? ORDER BY id', [job.job_id])).map(
      (row) => row.kind,
    );
    expect(kinds).toEqual(['reserve', 'release', 'charge']);
    await close();
  });

  it('takes over a job whose process died (lease expired) and calls the provider once more at most, billing once', async () => {
    let calls = 0;
    const source: ToolSource = { name: 'count', run: async () => ({ items: [{ type: 'place', value: `call ${++calls}` }], cost: 0.25 }) };
    const { db, accounts, account, make, close } = await setup(source);
    const engine = make();
    const job = await engine.jobs.create(account.id, 'maps', input);
    // As a killed process leaves it: claimed, lease about to end, never renewed.
    await db.run("UPDATE tool_jobs SET status = 'running', attempts = 1, lease_owner = 'gone|1|x', lease_until = ? WHERE id = ?", [
      Date.now() + 100,
      job.job_id,
    ]);
    engine.start();
    expect(await engine.jobs.wait(account.id, job.job_id)).toMatchObject({ status: 'succeeded', cost: 0.25 });
    expect(calls).toBe(1);
    expect(await db.get('SELECT attempts FROM tool_jobs WHERE id = ?', [job.job_id])).toEqual({ attempts: 2 });
    expect(await accounts.ledgerSum(account.id)).toBe(9.75);
    await close();
  });

  it('shares one provider call between identical jobs started on two processes at once', async () => {
    let calls = 0;
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const source: ToolSource = {
      name: 'shared',
      run: async () => {
        calls++;
        await gate;
        return { items: [{ type: 'place', value: 'A' }], cost: 1.5 };
      },
    };
    const { accounts, account, make, close } = await setup(source, {}, 20);
    const [a, b] = [make(), make()];
    a.start();
    b.start();
    const jobs = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? a : b).jobs.create(account.id, 'maps', input)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    finish();
    const done = await Promise.all(jobs.map((job) => a.jobs.wait(account.id, job.job_id)));
    expect(calls).toBe(1);
    expect(done.map((job) => job.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(done.filter((job) => !job.cached)).toHaveLength(1);
    expect((await accounts.retrieve(account.id)).balance).toBe(18.5);
    await close();
  });

  it('ends a failing provider call failed, with its reason, releasing the whole reservation', async () => {
    const { accounts, account, make, close } = await setup({
      name: 'broken',
      run: async () => {
        throw Object.assign(new Error('the map service is down'), { code: 'provider_error' });
      },
    });
    const engine = make();
    engine.start();
    const job = await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', input)).job_id);
    expect(job).toMatchObject({ status: 'failed', cost: null, error: { code: 'provider_error', message: 'the map service is down' } });
    expect((await accounts.retrieve(account.id)).balance).toBe(10);
    expect(await accounts.ledgerSum(account.id)).toBe(10);
    await close();
  });

  it('runs the provider again when the cache TTL is 0', async () => {
    let calls = 0;
    const { account, make, close } = await setup(
      { name: 'count', run: async () => ({ items: [], cost: ++calls * 0 }) },
      { cacheTtlSeconds: 0 },
    );
    const engine = make();
    engine.start();
    await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', input)).job_id);
    const again = await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', input)).job_id);
    expect(again.cached).toBe(false);
    expect(calls).toBe(2);
    await close();
  });

  it('answers from cache within the TTL and calls the provider again after it', async () => {
    let calls = 0;
    let skew = 0;
    const { account, make, close } = await setup(
      { name: 'count', run: async () => ({ items: [{ type: 'place', value: `call ${++calls}` }], cost: 0.1 }) },
      { cacheTtlSeconds: 60 },
      10,
      () => Date.now() + skew,
    );
    const engine = make();
    engine.start();
    await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', input)).job_id);
    const hit = await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', { ...input, query: 'BAKERY' })).job_id);
    expect(hit).toMatchObject({ cached: true, cost: 0, result: { items: [{ value: 'call 1' }] } });
    skew = 61_000; // a minute later: the cached result is stale
    const miss = await engine.jobs.wait(account.id, (await engine.jobs.create(account.id, 'maps', input)).job_id);
    expect(miss).toMatchObject({ cached: false, cost: 0.1, result: { items: [{ value: 'call 2' }] } });
    await close();
  });

  it('reports each tool as available or not in its catalog', async () => {
    const { make, close } = await setup({ name: 'x', run: async () => ({ items: [], cost: 0 }) });
    const catalog = make().tools.list().data;
    expect(catalog).toHaveLength(10);
    expect(catalog.find((tool) => tool.name === 'maps')!.available).toBe(true);
    expect(catalog.find((tool) => tool.name === 'pronet-jobs')!.available).toBe(false);
    expect(catalog.find((tool) => tool.name === 'website-contacts')!.available).toBe(false); // no egress guard given
    await close();
  });
});
