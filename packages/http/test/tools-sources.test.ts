import type { TestServer } from '@fathom/core/test';
import { createTestServer, respond } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, type StartedJobBody, startFathom, type TestFathom } from './harness';
import { createFakeApify, createFakeSocial, createFakeWebsite, pollJob, resultOf } from './tools-fakes';

/** What website-contacts answers, as far as these tests read it. */
interface ContactsResult {
  items: Array<{ type: string; value: string }>;
  sites: Array<{ status: string; error: string | null; pages_crawled: string[] }>;
}

describe('data tool sources against local servers', () => {
  let server: TestFathom;
  let website: TestServer;
  let apify: TestServer;
  let social: TestServer;
  let provider: TestServer;

  beforeAll(async () => {
    website = await createFakeWebsite();
    apify = await createFakeApify();
    social = await createFakeSocial();
    provider = await createTestServer({
      'POST /jobs-search': (request, response) =>
        respond.json(response, 200, {
          items: [{ title: `${request.json.input.keyword} at Acme`, company: 'Acme', location: 'Remote' }],
          cost: 0.25,
        }),
    });
    server = await startFathom({
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_TOOLS_APIFY_TOKEN: 'apify-test-token',
        FATHOM_TOOLS_APIFY_URL: apify.url,
        FATHOM_TOOLS_APIFY_POLL_MS: '20',
        FATHOM_TOOLS_PRONET_PROFILE_APIFY_ACTOR: 'someone/profile-search',
        FATHOM_TOOLS_PRONET_JOBS_URL: `${provider.url}/jobs-search`,
        FATHOM_TOOLS_BLUESKY_URL: social.url,
        FATHOM_TOOLS_GITHUB_URL: social.url,
        FATHOM_TOOLS_MASTODON_URL_TEMPLATE: 'http://{instance}',
        FATHOM_TOOLS_SWEEP_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await Promise.all([website.close(), apify.close(), social.close(), provider.close()]);
  });

  const run = async (tool: string, input: unknown) => {
    const response = await server.request(`/v1/tools/${tool}`, { method: 'POST', json: input });
    expect(response.status).toBe(202);
    return pollJob(server.request, (await json<StartedJobBody>(response)).data.poll_url);
  };

  it('website-contacts crawls likely pages, honours robots.txt and finds emails, phones and social links', async () => {
    const job = await run('website-contacts', { websites: [website.url] });
    expect(job.status).toBe('succeeded');
    const result = resultOf<ContactsResult>(job);
    const values = (type: string) =>
      result.items
        .filter((item) => item.type === type)
        .map((item) => item.value)
        .sort();
    expect(values('email')).toEqual(['hello@acme.test', 'jane@acme.test', 'jobs@acme.test', 'sales@acme.test', 'support@acme.test']);
    expect(values('phone')).toEqual(['+14155552671', '+49301234567', '+49307654321']);
    expect(values('social')).toEqual([
      'https://github.com/acme',
      'https://www.instagram.com/acme.official',
      'https://www.linkedin.com/company/acme',
    ]);
    const sales = result.items.find((item) => item.value === 'sales@acme.test');
    expect(sales).toMatchObject({ site: `${website.url}/`, source_url: `${website.url}/contact` });
    const paths = website.requests.map((request) => request.path);
    expect(paths[0]).toBe('/robots.txt');
    expect(paths).not.toContain('/private/staff');
    expect(paths).not.toContain('/blog');
    expect(website.requests.find((request) => request.path === '/')!.headers['user-agent']).toMatch(/FathomBot/);
    expect(job.cost).toBeCloseTo(0.04);
    expect(result.sites[0]).toMatchObject({ status: 'crawled', error: null });
  });

  it('website-contacts bounds the pages per site', async () => {
    const before = website.requests.length;
    const job = await run('website-contacts', { websites: [`${website.url}/?bounded`], max_pages_per_site: 2 });
    expect(resultOf<ContactsResult>(job).sites[0]?.pages_crawled).toHaveLength(2);
    expect(website.requests.length - before).toBe(3); // robots.txt + 2 pages
  });

  it('website-contacts fails with nothing billed when the egress guard refuses every site', async () => {
    const guarded = await startFathom({ env: {} });
    try {
      const response = await guarded.request('/v1/tools/website-contacts', {
        method: 'POST',
        json: { websites: [website.url, 'http://169.254.169.254/'] },
      });
      const job = await pollJob(guarded.request, (await json<StartedJobBody>(response)).data.poll_url);
      expect(job.status).toBe('failed');
      expect(job.error?.code).toBe('destination_not_allowed');
      expect((await json<AccountBody>(await guarded.request('/v1/account'))).balance).toBe(100);
    } finally {
      await guarded.close({ keepData: false });
    }
  });

  it('pronet-profile runs an Apify actor: start, poll, dataset, cost from usage', async () => {
    const job = await run('pronet-profile', { query: 'CTO', location: 'London', limit: 2 });
    expect(job.status).toBe('succeeded');
    expect(job.cost).toBeCloseTo(0.37);
    expect(job.result?.items[0]).toMatchObject({
      type: 'person',
      value: 'Ada Lovelace',
      job_title: 'CTO',
      company_name: 'Analytical Engines',
    });
    const startRun = apify.requests.find((request) => request.method === 'POST')!;
    expect(startRun.path).toBe('/v2/acts/someone~profile-search/runs');
    expect(startRun.json).toMatchObject({ query: 'CTO', location: 'London', limit: 2, maxItems: 2 });
    expect(apify.requests.some((request) => request.path.startsWith('/v2/datasets/'))).toBe(true);
  });

  it('pronet-profile ends failed with nothing billed when the Apify run fails', async () => {
    const failing = await createFakeApify({ finalStatus: 'FAILED' });
    const other = await startFathom({
      env: {
        FATHOM_TOOLS_APIFY_TOKEN: 'apify-test-token',
        FATHOM_TOOLS_APIFY_URL: failing.url,
        FATHOM_TOOLS_APIFY_POLL_MS: '10',
        FATHOM_TOOLS_PRONET_PROFILE_APIFY_ACTOR: 'x/y',
      },
    });
    try {
      const response = await other.request('/v1/tools/pronet-profile', { method: 'POST', json: { query: 'CTO' } });
      const job = await pollJob(other.request, (await json<StartedJobBody>(response)).data.poll_url);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'provider_error' } });
      expect(job.error?.message).toContain('FAILED: Actor crashed');
      expect((await json<AccountBody>(await other.request('/v1/account'))).balance).toBe(100);
    } finally {
      await other.close({ keepData: false });
      await failing.close();
    }
  });

  it('aborts the Apify run when the job times out, billing nothing', async () => {
    const stuck = await createFakeApify({ neverFinish: true });
    const other = await startFathom({
      env: {
        FATHOM_TOOLS_APIFY_TOKEN: 'apify-test-token',
        FATHOM_TOOLS_APIFY_URL: stuck.url,
        FATHOM_TOOLS_APIFY_POLL_MS: '20',
        FATHOM_TOOLS_LEADS_FINDER_APIFY_ACTOR: 'x/leads',
        FATHOM_TOOLS_JOB_TIMEOUT_MS: '300',
      },
    });
    try {
      const response = await other.request('/v1/tools/leads-finder', { method: 'POST', json: { job_title: 'CTO' } });
      const job = await pollJob(other.request, (await json<StartedJobBody>(response)).data.poll_url);
      expect(job).toMatchObject({ status: 'failed', error: { code: 'timeout' } });
      await expect
        .poll(() => stuck.requests.some((request) => request.method === 'POST' && request.path === '/v2/actor-runs/run1/abort'))
        .toBe(true);
      expect((await json<AccountBody>(await other.request('/v1/account'))).balance).toBe(100);
    } finally {
      await other.close({ keepData: false });
      await stuck.close();
    }
  });

  it('pronet-jobs posts the input to a generic HTTP provider and bills the cost it reports', async () => {
    const job = await run('pronet-jobs', { keyword: 'rust engineer', remote: true });
    expect(job).toMatchObject({ status: 'succeeded', cost: 0.25 });
    expect(job.result?.items[0]).toMatchObject({ type: 'job', value: 'rust engineer at Acme', company: 'Acme' });
    expect(provider.requests[0]!.json).toEqual({ tool: 'pronet-jobs', input: { keyword: 'rust engineer', remote: true, limit: 25 } });
  });

  it('social-profile reads Bluesky, Mastodon (through the egress guard) and GitHub public APIs', async () => {
    const bluesky = await run('social-profile', { platform: 'bluesky', username: '@alice.bsky.social' });
    expect(bluesky.result?.items[0]).toMatchObject({
      type: 'profile',
      value: 'alice.bsky.social',
      platform: 'bluesky',
      name: 'Alice',
      followers: 120,
      bio: 'Sailing and SQL',
      posts: [{ text: 'Hello sky', url: 'https://bsky.app/profile/alice.bsky.social/post/3k1' }],
    });
    expect(bluesky.cost).toBeCloseTo(0.05);
    const mastodon = await run('social-profile', { platform: 'mastodon', username: `bob@127.0.0.1:${social.port}`, posts_limit: 1 });
    expect(mastodon.result?.items[0]).toMatchObject({ name: 'Bob', bio: 'Rust & maps', followers: 9, posts: [{ text: 'First toot' }] });
    const github = await run('social-profile', { platform: 'github', username: 'octocat', include_posts: false });
    expect(github.result?.items[0]).toMatchObject({ value: 'octocat', name: 'The Octocat', followers: 1000, posts: [] });
    const missing = await run('social-profile', { platform: 'bluesky', username: 'nobody.bsky.social' });
    expect(missing).toMatchObject({ status: 'failed', error: { code: 'profile_not_found' } });
  });
});
