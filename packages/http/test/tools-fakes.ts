import type { ToolJob } from '@fathom/core';
import { createTestServer, respond, type TestServer } from '@fathom/core/test';
import { json, type JobEnvelope } from './harness';

/** A small company website: homepage linking contact, imprint and team pages; robots.txt disallows /private. */
export async function createFakeWebsite(): Promise<TestServer> {
  const page = (body: string) =>
    `<!doctype html><html><head><title>Acme</title><script>var x = "noscript@example.org";</script></head><body>${body}</body></html>`;
  return createTestServer({
    'GET /robots.txt': (_, response) => respond.text(response, 200, 'User-agent: *\nDisallow: /private\n'),
    'GET /': (_, response) =>
      respond.text(
        response,
        200,
        page(`
        <nav><a href="/contact">Contact us</a> <a href="/impressum">Impressum</a> <a href="/team">Our team</a> <a href="/private/staff">Staff list</a>
        <a href="/blog">Blog</a></nav>
        <p>Welcome to Acme. Write to <a href="mailto:hello@acme.test?subject=Hi">us</a>.</p>
        <footer><a href="https://www.linkedin.com/company/acme">LinkedIn</a> <a href="https://twitter.com/intent/tweet?text=x">share</a>
        <a href="https://github.com/acme">GitHub</a></footer>`),
        'text/html; charset=utf-8',
      ),
    'GET /contact': (_, response) =>
      respond.text(
        response,
        200,
        page(`<h1>Contact</h1><p>Sales: sales [at] acme [dot] test</p><p>Phone: <a href="tel:+49 30 1234567">+49 30 1234567</a></p>
        <p>Support: support(at)acme(dot)test, fax +49 (0)30 7654321</p>`),
        'text/html',
      ),
    'GET /impressum': (_, response) =>
      respond.text(
        response,
        200,
        page(`<address>Acme GmbH<br>Jobs: jobs&#64;acme.test<br>Tel. +1 415 555 2671</address>
        <a href="https://www.instagram.com/acme.official/">Instagram</a>`),
        'text/html',
      ),
    'GET /team': (_, response) => respond.text(response, 200, page('<p>Jane Doe, CEO: jane at acme dot test</p>'), 'text/html'),
    'GET /private/staff': (_, response) => respond.text(response, 200, page('<p>secret@acme.test</p>'), 'text/html'),
  });
}

/** Nominatim + Overpass in one server: `/search` geocodes, `/api/interpreter` answers elements. */
export async function createFakeOsm(
  options: {
    delayMs?: number;
    fail?: boolean;
    /** The first Overpass query waits for this (or for its client to go away); later ones answer at once. */
    holdFirst?: Promise<void>;
    /** Called as each Overpass query arrives. */
    onQuery?: () => void;
  } = {},
): Promise<TestServer> {
  let queries = 0;
  return createTestServer({
    'GET /search': (request, response) => {
      if (request.query.get('q') === 'Nowhere') return respond.json(response, 200, []);
      respond.json(response, 200, [{ lat: '52.5', lon: '13.4', display_name: `${request.query.get('q')}, Germany` }]);
    },
    'POST /api/interpreter': async (_, response) => {
      options.onQuery?.();
      if (options.holdFirst && queries++ === 0) {
        await Promise.race([options.holdFirst, new Promise((resolve) => response.once('close', resolve))]);
        if (response.destroyed) return;
      }
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      if (options.fail) return respond.text(response, 504, 'runtime error: query timed out');
      respond.json(response, 200, {
        elements: [
          { type: 'node', id: 2, lat: 52.51, lon: 13.41, tags: { name: 'Far Bakery', shop: 'bakery' } },
          {
            type: 'node',
            id: 1,
            lat: 52.5001,
            lon: 13.4001,
            tags: {
              name: 'Near Bakery',
              shop: 'bakery',
              phone: '+49 30 111',
              website: 'https://near.test',
              'addr:street': 'Hauptstr.',
              'addr:housenumber': '1',
              'addr:postcode': '10115',
              'addr:city': 'Berlin',
            },
          },
          { type: 'way', id: 3, center: { lat: 52.502, lon: 13.402 }, tags: { name: 'Bread Hotel', tourism: 'hotel', stars: '4' } },
          { type: 'node', id: 4, lat: 52.5, lon: 13.4, tags: { shop: 'bakery' } },
        ],
      });
    },
  });
}

/** Apify's run API: start, status (RUNNING once, then the final status), dataset items. */
export async function createFakeApify(
  options: { finalStatus?: string; usageTotalUsd?: number; neverFinish?: boolean } = {},
): Promise<TestServer> {
  const polls = new Map<string, number>();
  let runs = 0;
  const server = await createTestServer({
    '*': (request, response) => {
      if (request.headers.authorization !== 'Bearer apify-test-token')
        return respond.json(response, 401, { error: { type: 'token-not-provided' } });
      const started = request.path.match(/^\/v2\/acts\/([^/]+)\/runs$/);
      if (request.method === 'POST' && started) {
        const id = `run${++runs}`;
        polls.set(id, 0);
        return respond.json(response, 201, {
          data: { id, status: 'READY', defaultDatasetId: `ds_${id}`, actId: decodeURIComponent(started[1]!) },
        });
      }
      const aborted = request.path.match(/^\/v2\/actor-runs\/([^/]+)\/abort$/);
      if (request.method === 'POST' && aborted) return respond.json(response, 200, { data: { id: aborted[1], status: 'ABORTING' } });
      const status = request.path.match(/^\/v2\/actor-runs\/([^/]+)$/);
      if (status) {
        const id = status[1]!;
        const count = (polls.get(id) ?? 0) + 1;
        polls.set(id, count);
        const done = count >= 2 && !options.neverFinish;
        return respond.json(response, 200, {
          data: {
            id,
            status: done ? (options.finalStatus ?? 'SUCCEEDED') : 'RUNNING',
            statusMessage: done && options.finalStatus ? 'Actor crashed' : undefined,
            defaultDatasetId: `ds_${id}`,
            usageTotalUsd: options.usageTotalUsd ?? 0.37,
          },
        });
      }
      if (/^\/v2\/datasets\/[^/]+\/items$/.test(request.path)) {
        return respond.json(response, 200, [
          { fullName: 'Ada Lovelace', jobTitle: 'CTO', companyName: 'Analytical Engines', profileUrl: 'https://pronet.test/in/ada' },
          {
            fullName: 'Grace Hopper',
            jobTitle: 'Head of Engineering',
            companyName: 'Cobol Inc',
            profileUrl: 'https://pronet.test/in/grace',
          },
        ]);
      }
      respond.json(response, 404, { error: { type: 'record-not-found' } });
    },
  });
  return server;
}

/** Bluesky AppView, a Mastodon instance and the GitHub API, each on its own path prefix. */
export async function createFakeSocial(): Promise<TestServer> {
  return createTestServer({
    'GET /xrpc/app.bsky.actor.getProfile': (request, response) => {
      if (request.query.get('actor') !== 'alice.bsky.social')
        return respond.json(response, 400, { error: 'InvalidRequest', message: 'Profile not found' });
      respond.json(response, 200, {
        did: 'did:plc:alice',
        handle: 'alice.bsky.social',
        displayName: 'Alice',
        description: 'Sailing and SQL',
        followersCount: 120,
        followsCount: 80,
        postsCount: 42,
      });
    },
    'GET /xrpc/app.bsky.feed.getAuthorFeed': (_, response) =>
      respond.json(response, 200, {
        feed: [
          { post: { uri: 'at://did:plc:alice/app.bsky.feed.post/3k1', record: { text: 'Hello sky', createdAt: '2026-01-01T00:00:00Z' } } },
        ],
      }),
    'GET /api/v1/accounts/lookup': (request, response) => {
      if (request.query.get('acct') !== 'bob') return respond.json(response, 404, { error: 'Record not found' });
      respond.json(response, 200, {
        id: '77',
        username: 'bob',
        display_name: 'Bob',
        note: '<p>Rust &amp; maps</p>',
        followers_count: 9,
        following_count: 3,
        statuses_count: 5,
        url: 'https://social.test/@bob',
      });
    },
    'GET /api/v1/accounts/77/statuses': (_, response) =>
      respond.json(response, 200, [
        { content: '<p>First <b>toot</b></p>', created_at: '2026-02-02T00:00:00Z', url: 'https://social.test/@bob/1' },
      ]),
    'GET /users/octocat': (_, response) =>
      respond.json(response, 200, {
        login: 'octocat',
        name: 'The Octocat',
        bio: null,
        followers: 1000,
        following: 9,
        public_repos: 8,
        html_url: 'https://github.com/octocat',
        blog: 'https://github.blog',
      }),
    'GET /users/octocat/events/public': (_, response) =>
      respond.json(response, 200, [{ type: 'PushEvent', repo: { name: 'octocat/hello' }, created_at: '2026-03-03T00:00:00Z' }]),
  });
}

/** Polls a job until it is terminal. */
export async function pollJob(
  request: (path: string, init?: { apiKey?: string }) => Promise<Response>,
  pollUrl: string,
  apiKey?: string,
  timeoutMs = 15_000,
): Promise<ToolJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await request(pollUrl, apiKey ? { apiKey } : undefined);
    if (response.status !== 200) throw new Error(`poll ${pollUrl}: ${response.status} ${await response.text()}`);
    const { data } = await json<JobEnvelope>(response);
    if (data.status === 'succeeded' || data.status === 'failed') return data;
    if (Date.now() > deadline) throw new Error(`job still ${data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The result of a finished job as the fields the test reads (core types items as `unknown`: each tool
 * has its own); a declaration, not a check. Throws when the job has no result (it did not succeed).
 */
export function resultOf<Result extends { items: unknown[] }>(job: ToolJob): Result {
  if (!job.result) throw new Error(`job ${job.job_id} ended ${job.status} without a result: ${JSON.stringify(job.error)}`);
  return job.result as Result;
}
