import type { ToolJob } from '@fathom/core';
import type { TestServer } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountBody,
  type ErrorBody,
  type JobEnvelope,
  json,
  type LedgerBody,
  type ListBody,
  type StartedJobBody,
  startFathom,
  type TestFathom,
  type ToolCatalogEntry,
} from './harness';
import { createFakeOsm, pollJob } from './tools-fakes';

const CEILINGS: Record<string, number> = {
  'pronet-profile': 2,
  'pronet-profile-detail': 1,
  'pronet-employees': 10,
  'pronet-company': 1,
  'pronet-jobs': 4,
  'leads-finder': 6,
  maps: 2,
  'website-contacts': 0.8,
  'social-profile': 0.5,
  'nl-data': 0.5,
};

describe('data tools: catalog, start, poll, billing and cache', () => {
  let server: TestFathom;
  let osm: TestServer;
  let failingOsm: TestServer;

  beforeAll(async () => {
    osm = await createFakeOsm();
    failingOsm = await createFakeOsm({ fail: true });
    server = await startFathom({
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_TOOLS_NOMINATIM_URL: osm.url,
        FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
        FATHOM_TOOLS_LEADS_FINDER_URL: `${failingOsm.url}/api/interpreter`,
        FATHOM_TOOLS_SWEEP_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await osm.close();
    await failingOsm.close();
  });

  const start = (tool: string, body: unknown, apiKey?: string) =>
    server.request(`/v1/tools/${tool}`, { method: 'POST', json: body, apiKey });
  /** Starts a job and answers its poll URL. */
  const startPollUrl = async (tool: string, body: unknown) => (await json<StartedJobBody>(await start(tool, body))).data.poll_url;
  const balance = async () => (await json<AccountBody>(await server.request('/v1/account'))).balance;

  it('lists the ten tools with the spec ceilings and closed input schemas', async () => {
    const response = await server.request('/v1/tools');
    expect(response.status).toBe(200);
    const body = await json<ListBody<ToolCatalogEntry>>(response);
    expect(body.object).toBe('list');
    expect(Object.fromEntries(body.data.map((tool) => [tool.name, tool.estimated_max_cost]))).toEqual(CEILINGS);
    for (const tool of body.data) {
      expect(tool.path).toBe(`/v1/tools/${tool.name}`);
      expect(tool.description).toMatch(/minors/);
      expect(tool.input_schema).toMatchObject({ type: 'object', additionalProperties: false });
      const limit = tool.input_schema.properties.limit;
      if (limit) expect(limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    }
    const maps = body.data.find((tool) => tool.name === 'maps');
    expect(maps?.input_schema.required).toEqual(['query', 'location']);
    expect(maps?.input_schema.properties.limit?.default).toBe(20);
    expect(body.data.find((tool) => tool.name === 'website-contacts')?.input_schema.properties.websites?.type).toBe('array');
    const one = await json<ToolCatalogEntry>(await server.request('/v1/tools/maps'));
    expect(one).toEqual(maps);
    expect(one.available).toBe(true);
    expect((await json<ToolCatalogEntry>(await server.request('/v1/tools/pronet-profile'))).available).toBe(false);
    expect((await server.request('/v1/tools/nope')).status).toBe(404);
  });

  it('runs maps end to end: 202 at once, poll, succeeded with places, actual cost billed and the rest released', async () => {
    const before = await balance();
    const t0 = performance.now();
    const response = await start('maps', { query: 'bakeries', location: 'Berlin', limit: 2 });
    const elapsed = performance.now() - t0;
    expect(response.status).toBe(202);
    const { data } = await json<StartedJobBody>(response);
    expect(data).toEqual({
      job_id: expect.stringMatching(/^job_/),
      status: 'queued',
      poll_url: `/v1/tools/jobs/${data.job_id}`,
      estimated_max_cost: 2,
    });
    expect(elapsed).toBeLessThan(1000); // no provider work before the answer (bench: p50 under 2 ms)

    const job = await pollJob(server.request, data.poll_url);
    expect(job).toMatchObject({ job_id: data.job_id, tool: 'maps', status: 'succeeded', cached: false, error: null });
    expect(job.result?.items).toHaveLength(2);
    expect(job.result?.items[0]).toMatchObject({
      type: 'place',
      value: 'Near Bakery',
      phone: '+49 30 111',
      website: 'https://near.test',
      address: 'Hauptstr. 1, 10115 Berlin',
      category: 'shop=bakery',
      rating: null,
      lat: 52.5001,
      lon: 13.4001,
    });
    expect(job.cost).toBeCloseTo(0.04);
    expect(job.finished_at).toBeGreaterThanOrEqual(job.created_at);
    const overpass = osm.requests.find((request) => request.path === '/api/interpreter')!;
    expect(decodeURIComponent(overpass.body.replace(/\+/g, ' '))).toContain('bakery');

    const account = await json<AccountBody>(await server.request('/v1/account'));
    expect(account.balance).toBeCloseTo(before - 0.04, 6);
    const ledger = (await json<LedgerBody>(await server.request('/v1/account/ledger?limit=100'))).data.filter(
      (entry) => entry.ref === data.job_id,
    );
    expect(ledger.map((entry) => [entry.kind, entry.amount]).sort()).toEqual(
      [
        ['charge', -0.04],
        ['release', 2],
        ['reserve', -2],
      ].sort(),
    );
    expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(account.balance, 6);
  });

  it('answers an identical search from cache: cached, cost 0, no provider call', async () => {
    const input = { query: 'hotel', location: 'Berlin', limit: 1 };
    const first = await pollJob(server.request, await startPollUrl('maps', input));
    expect(first).toMatchObject({ status: 'succeeded', cached: false });
    const calls = osm.requests.length;
    const before = await balance();
    const again = await pollJob(server.request, await startPollUrl('maps', { ...input, query: '  Hotel ' }));
    expect(again).toMatchObject({ status: 'succeeded', cached: true, cost: 0 });
    expect(again.result?.items).toEqual(first.result?.items);
    expect(osm.requests.length).toBe(calls);
    expect(await balance()).toBeCloseTo(before, 6);
  });

  it('serves identical requests in flight with one provider call', async () => {
    const slow = await createFakeOsm({ delayMs: 300 });
    const other = await startFathom({
      env: { FATHOM_TOOLS_NOMINATIM_URL: slow.url, FATHOM_TOOLS_OVERPASS_URL: `${slow.url}/api/interpreter` },
    });
    try {
      const input = { query: 'cafe', location: 'Berlin' };
      const starts = await Promise.all([1, 2, 3].map(() => other.request('/v1/tools/maps', { method: 'POST', json: input })));
      const jobs = await Promise.all(
        starts.map(async (response) => pollJob(other.request, (await json<StartedJobBody>(response)).data.poll_url)),
      );
      expect(slow.requests.filter((request) => request.path === '/api/interpreter')).toHaveLength(1);
      expect(jobs.filter((job) => !job.cached)).toHaveLength(1);
      expect(jobs.filter((job) => job.cached).every((job) => job.cost === 0)).toBe(true);
      const account = await json<AccountBody>(await other.request('/v1/account'));
      const billed = jobs.find((job) => !job.cached)?.cost;
      expect(billed).toBeTypeOf('number');
      expect(account.balance).toBeCloseTo(100 - (billed ?? 0), 6);
    } finally {
      await other.close({ keepData: false });
      await slow.close();
    }
  });

  it('names each missing, unknown or wrong field with 400', async () => {
    const missing = await start('maps', { location: 'Berlin', colour: 'red', limit: 500 });
    expect(missing.status).toBe(400);
    const { error } = await json<ErrorBody>(missing);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain("Missing required parameter: 'query'");
    expect(error.message).toContain("Unrecognized request argument supplied: 'colour'");
    expect(error.message).toMatch(/'limit'.*100/);

    const wrongType = await json<ErrorBody>(await start('website-contacts', { websites: 'acme.test' }));
    expect(wrongType.error.message).toContain("Invalid type for 'websites': expected an array");
    const none = await json<ErrorBody>(await start('pronet-profile', { limit: 5 }));
    expect(none.error.message).toContain("provide at least one of 'query', 'job_title', 'company'");
    const empty = await server.request('/v1/tools/maps', { method: 'POST' });
    expect(empty.status).toBe(400);
    expect((await json<ErrorBody>(empty)).error.message).toContain("'query'");
  });

  it('refuses rule-5 requests with 400 and a clear reason, reserving nothing', async () => {
    const before = await balance();
    const cases: Array<[string, unknown, RegExp]> = [
      ['leads-finder', { job_title: 'students', location: 'Berlin', keyword: 'children under 16' }, /minors/],
      [
        'nl-data',
        { description: 'Find the home address of my ex-girlfriend and track her daily routine' },
        /track or surveil one private individual/,
      ],
      ['leads-finder', { job_title: 'CEO', keyword: 'bulk email list for spam campaign' }, /bulk list meant for spam/],
    ];
    for (const [tool, input, reason] of cases) {
      const response = await start(tool, input);
      expect(response.status).toBe(400);
      const { error } = await json<ErrorBody>(response);
      expect(error.code).toBe('policy_violation');
      expect(error.message).toMatch(reason);
    }
    expect(await balance()).toBe(before);
  });

  it('answers 503 tool_unavailable with how to configure it, reserving nothing', async () => {
    const response = await start('pronet-profile', { query: 'data engineer' });
    expect(response.status).toBe(503);
    const { error } = await json<ErrorBody>(response);
    expect(error.code).toBe('tool_unavailable');
    expect(error.message).toContain('FATHOM_TOOLS_PRONET_PROFILE_APIFY_ACTOR');
    expect(error.message).toContain('FATHOM_TOOLS_PRONET_PROFILE_URL');
    const unknown = await start('nope', {});
    expect(unknown.status).toBe(404);
  });

  it('answers 402 insufficient_balance and creates no job when the ceiling does not fit', async () => {
    const poor = await server.newAccount(1.5);
    const response = await start('maps', { query: 'bakery', location: 'Berlin' }, poor.apiKey);
    expect(response.status).toBe(402);
    expect((await json<ErrorBody>(response)).error.code).toBe('insufficient_balance');
    const jobs = await json<ListBody<ToolJob>>(await server.request('/v1/tools/jobs', { apiKey: poor.apiKey }));
    expect(jobs.data).toEqual([]);
    expect((await server.fathom.accounts.retrieve(poor.id)).balance).toBe(1.5);
    const ledger = await json<LedgerBody>(await server.request('/v1/account/ledger', { apiKey: poor.apiKey }));
    expect(ledger.data.map((entry) => entry.kind)).toEqual(['credit']);
  });

  it('keeps jobs private: another account gets 404 and does not see them in its list', async () => {
    const { data } = await json<StartedJobBody>(await start('maps', { query: 'bakery', location: 'Berlin', limit: 1 }));
    const stranger = await server.newAccount(10);
    const response = await server.request(data.poll_url, { apiKey: stranger.apiKey });
    expect(response.status).toBe(404);
    expect((await json<ErrorBody>(response)).error.code).toBe('not_found');
    expect((await server.request('/v1/tools/jobs/job_doesnotexist')).status).toBe(404);
    const theirs = await json<ListBody<ToolJob>>(await server.request('/v1/tools/jobs', { apiKey: stranger.apiKey }));
    expect(theirs.data).toEqual([]);
    const mine = await json<ListBody<ToolJob>>(await server.request('/v1/tools/jobs?limit=100'));
    expect(mine).toMatchObject({ object: 'list', has_more: false });
    expect(mine.data.map((job) => job.job_id)).toContain(data.job_id);
    await pollJob(server.request, data.poll_url);
  });

  it('ends a provider failure as failed with the reason and bills nothing', async () => {
    const before = await balance();
    const { data } = await json<StartedJobBody>(await start('leads-finder', { job_title: 'CTO', location: 'Berlin' }));
    const job = await pollJob(server.request, data.poll_url);
    expect(job).toMatchObject({ status: 'failed', cost: null, result: null });
    expect(job.error?.code).toBe('provider_error');
    expect(job.error?.message).toContain('HTTP 504');
    const failedGeo = await pollJob(server.request, await startPollUrl('maps', { query: 'x', location: 'Nowhere' }));
    expect(failedGeo.error?.code).toBe('location_not_found');
    const account = await json<AccountBody>(await server.request('/v1/account'));
    expect(account.balance).toBe(before);
    expect(await server.fathom.accounts.ledgerSum(account.id)).toBeCloseTo(account.balance, 6);
  });

  it('works from the official openai SDK (generic post/get) with typed errors', async () => {
    const started = await server.client.post<StartedJobBody>('/tools/maps', { body: { query: 'bakery', location: 'Berlin', limit: 1 } });
    expect(started.data).toMatchObject({ status: 'queued', estimated_max_cost: 2 });
    const poll = async () => (await server.client.get<JobEnvelope>(started.data.poll_url.replace(/^\/v1/, ''))).data;
    let job = await poll();
    while (job.status === 'queued' || job.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 20));
      job = await poll();
    }
    expect(job.status).toBe('succeeded');
    // A second job of another tool and one more maps job: the filtered list holds this test's two maps jobs, newest first.
    await server.client.post('/tools/leads-finder', { body: { job_title: 'CTO', location: 'Berlin' } });
    const second = await server.client.post<StartedJobBody>('/tools/maps', { body: { query: 'hotel', location: 'Berlin', limit: 1 } });
    const list = await server.client.get<ListBody<ToolJob>>('/tools/jobs', { query: { tool: 'maps', limit: 2 } });
    expect(list.data.map((item) => item.job_id)).toEqual([second.data.job_id, started.data.job_id]);
    const poor = await server.newAccount(0.1);
    const error = await poor.client
      .post('/tools/maps', { body: { query: 'bakery', location: 'Berlin' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_balance' });
    const invalid = await server.client.post('/tools/maps', { body: {} }).catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('keeps the ledger equal to the balance over every account', async () => {
    const accounts = await server.fathom.database.all<{ id: string }>('SELECT id FROM accounts');
    for (const { id } of accounts) {
      expect(await server.fathom.accounts.ledgerSum(id)).toBeCloseTo((await server.fathom.accounts.retrieve(id)).balance, 6);
    }
    const unsettled = await server.fathom.database.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM tool_jobs j WHERE j.status IN ('succeeded','failed') AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.ref = j.id AND l.kind = 'release')`,
    );
    expect(unsettled!.n).toBe(0);
  });
});
