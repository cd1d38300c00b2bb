import type { ToolJob } from '@fathom/core';
import type { TestServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountBody,
  type ErrorBody,
  type JobEnvelope,
  json,
  type ListBody,
  type StartedJobBody,
  startFathom,
  type TestFathom,
} from './harness';
import { createFakeOsm, pollJob } from './tools-fakes';

function ledgerRows(server: TestFathom, ref: string): Promise<Array<{ kind: string; amount_micros: number }>> {
  return server.fathom.database.all('SELECT kind, amount_micros FROM ledger WHERE ref = ? ORDER BY id', [ref]);
}

describe('data tools: durable queue, restart, timeout and concurrency', () => {
  let osm: TestServer;
  let slowOsm: TestServer;
  beforeAll(async () => {
    osm = await createFakeOsm();
    slowOsm = await createFakeOsm({ delayMs: 1500 });
  });
  afterAll(async () => {
    await osm.close();
    await slowOsm.close();
  });
  const osmEnv = (fake: TestServer) => ({
    FATHOM_TOOLS_NOMINATIM_URL: fake.url,
    FATHOM_TOOLS_OVERPASS_URL: `${fake.url}/api/interpreter`,
    FATHOM_TOOLS_SWEEP_MS: '50',
  });

  it('runs queued jobs after a restart, re-runs interrupted ones, fails those out of attempts, and bills each once', async () => {
    const first = await startFathom({ env: osmEnv(osm), start: false });
    const ids: string[] = [];
    for (const query of ['bakery', 'hotel', 'cafe', 'bar']) {
      const response = await first.request('/v1/tools/maps', { method: 'POST', json: { query, location: 'Berlin', limit: 1 } });
      expect(response.status).toBe(202);
      ids.push((await json<StartedJobBody>(response)).data.job_id);
    }
    // As a crash leaves them: one job mid-run with a retry left, one mid-run on its last attempt.
    await first.fathom.database.run(
      `UPDATE tool_jobs SET status = 'running', attempts = 1, lease_owner = 'gone', lease_until = 0 WHERE id = ?`,
      [ids[2]],
    );
    await first.fathom.database.run(
      `UPDATE tool_jobs SET status = 'running', attempts = 2, lease_owner = 'gone', lease_until = 0 WHERE id = ?`,
      [ids[3]],
    );
    expect((await json<JobEnvelope>(await first.request(`/v1/tools/jobs/${ids[0]}`))).data.status).toBe('queued');
    expect((await json<AccountBody>(await first.request('/v1/account'))).balance).toBe(92);
    await first.close({ keepData: true });

    const second = await startFathom({ env: osmEnv(osm), dataDir: first.dataDir });
    try {
      const jobs = await Promise.all(ids.map((id) => pollJob(second.request, `/v1/tools/jobs/${id}`)));
      expect(jobs.map((job) => job.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'failed']);
      expect(jobs[3]?.error?.code).toBe('job_interrupted');
      for (const [index, id] of ids.entries()) {
        const kinds = (await ledgerRows(second, id)).map((row) => row.kind);
        expect(kinds).toEqual(index === 3 ? ['reserve', 'release'] : ['reserve', 'release', 'charge']);
      }
      const account = await json<AccountBody>(await second.request('/v1/account'));
      const charged = jobs.reduce((sum, job) => sum + (job.cost ?? 0), 0);
      expect(account.balance).toBeCloseTo(100 - charged, 6);
      expect(await second.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(account.balance, 6);
    } finally {
      await second.close({ keepData: true });
    }

    // A third start changes nothing: terminal jobs are never re-run or billed again.
    const third = await startFathom({ env: osmEnv(osm), dataDir: first.dataDir });
    try {
      await third.fathom.jobs.idle(); // its first claim found nothing to run
      for (const id of ids) expect((await ledgerRows(third, id)).length).toBeLessThanOrEqual(3);
      expect(await third.fathom.jobs.unfinishedCount()).toBe(0);
    } finally {
      await third.close({ keepData: false });
    }
  });

  it('fails a job past its timeout and bills nothing', async () => {
    const server = await startFathom({ env: { ...osmEnv(slowOsm), FATHOM_TOOLS_JOB_TIMEOUT_MS: '200' } });
    try {
      const response = await server.request('/v1/tools/maps', { method: 'POST', json: { query: 'slow', location: 'Berlin' } });
      const job = await pollJob(server.request, (await json<StartedJobBody>(response)).data.poll_url);
      expect(job).toMatchObject({ status: 'failed', cost: null, error: { code: 'timeout' } });
      expect((await json<AccountBody>(await server.request('/v1/account'))).balance).toBe(100);
    } finally {
      await server.close({ keepData: false });
    }
  });

  it('accepts at most 10 of 50 simultaneous starts against a balance of 10 ceilings, never negative, ledger consistent', async () => {
    // Jobs take 4 s, so none finishes (and frees money) while the 50 starts are still arriving, even on a loaded machine.
    const slowerOsm = await createFakeOsm({ delayMs: 4000 });
    const server = await startFathom({ env: { ...osmEnv(slowerOsm), FATHOM_TOOLS_CONCURRENCY: '10' } });
    try {
      const account = await server.newAccount(20);
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          server.request('/v1/tools/maps', {
            method: 'POST',
            apiKey: account.apiKey,
            json: { query: `shop ${index}`, location: 'Berlin', limit: 1 },
          }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 202)).toHaveLength(10);
      expect(statuses.filter((status) => status === 402)).toHaveLength(40);
      const bodies = await Promise.all(responses.map((response) => json<StartedJobBody | ErrorBody>(response)));
      expect((await server.fathom.accounts.retrieve(account.id)).balance).toBe(0);
      const jobs = await json<ListBody<ToolJob>>(await server.request('/v1/tools/jobs?limit=100', { apiKey: account.apiKey }));
      expect(jobs.data).toHaveLength(10);

      const accepted = bodies.flatMap((body) => ('data' in body ? [body.data.poll_url] : []));
      const finished = await Promise.all(accepted.map((url) => pollJob(server.request, url, account.apiKey, 20_000)));
      const charged = finished.reduce((sum, job) => sum + (job.cost ?? 0), 0);
      const balance = (await server.fathom.accounts.retrieve(account.id)).balance;
      expect(balance).toBeGreaterThanOrEqual(0);
      expect(balance).toBeCloseTo(20 - charged, 6);
      expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(balance, 6);
      const negative = await server.fathom.database.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts WHERE balance_micros < 0');
      expect(negative!.n).toBe(0);
    } finally {
      await server.close({ keepData: false });
      await slowerOsm.close();
    }
  }, 30_000);
});
