import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { meterReads } from '../test/metered-sql-client';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { SqlJobsRepository } from './job-store';
import { jobsSchema } from './schema';

afterAll(closeTestPostgres);

describe.each(testBackends())('jobs repository on %s', (backend) => {
  it('lists jobs without reading their inputs (the job object does not show them)', async () => {
    const db = await openTestDatabase(backend, [accountsSchema, jobsSchema]);
    const account = await new Accounts(db).create({ name: 'a' });
    const metered = meterReads(db);
    const jobs = new SqlJobsRepository(metered);
    for (let i = 0; i < 5; i++) {
      await jobs.insert({
        id: `job_${i}`,
        accountId: account.id,
        tool: 'maps',
        input: { query: 'q'.repeat(500_000) },
        cacheKey: `k${i}`,
        ceiling: 0.5,
      });
    }
    metered.reset();
    const page = await jobs.list(account.id, { limit: 3 });
    expect(page.data.map((job) => [job.id, job.status, job.estimated_max_cost])).toEqual([
      ['job_4', 'queued', 0.5],
      ['job_3', 'queued', 0.5],
      ['job_2', 'queued', 0.5],
    ]);
    expect(metered.bytesRead).toBeLessThan(2_000);
    await db.close();
  });
});
