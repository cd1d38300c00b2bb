import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Run } from './assistants';
import { Fathom } from './fathom';
import { silentLogger } from './internal/logger';
import { createFakeOpenAIUpstream, createTestServer, type FakeScript, respond } from './test';

/**
 * Two `Fathom.open` on one database in one test process stand in for two server processes (here a
 * SQLite data dir both open, the embedded way to share one database). A process "dies" the way a
 * killed one leaves its work: its lease is no longer renewed, so it runs out.
 */
describe('two Fathoms sharing one database', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function node(dataDir: string, script: FakeScript) {
    const upstream = await createFakeOpenAIUpstream(script);
    const fathom = await Fathom.open({
      env: {
        FATHOM_DATA_DIR: dataDir,
        FATHOM_EMBEDDER: 'hash',
        FATHOM_ALLOW_REMOTE_MODELS: 'false',
        FATHOM_API_KEY: 'fth_shared_database_test',
        FATHOM_LEASE_SECONDS: '0.3',
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        AGENT_EGRESS_ALLOW: '127.0.0.1',
      },
      logger: silentLogger,
    });
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await fathom.close();
    };
    cleanups.push(() => upstream.close(), close);
    return { fathom, upstream, accountId: fathom.bootstrap.accountId!, close };
  }

  function dataDir() {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-shared-'));
    cleanups.unshift(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('finishes a run on the other process when the one running it dies mid model call', async () => {
    const dir = dataDir();
    const first = await node(dir, () => ({ content: 'never', hang: true }));
    const second = await node(dir, () => ({ content: 'Answered by the survivor.' }));
    const assistant = await first.fathom.assistants.create(first.accountId, { model: 'fake/model' });
    const run: Run = await first.fathom.threads.createAndRun(first.accountId, {
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hello' }] },
    });
    const deadline = Date.now() + 10_000;
    while (first.upstream.requests.length === 0) {
      if (Date.now() > deadline) throw new Error('the first process never called its model');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The first process dies: its lease is not given back (another owner holds it, never renewed), and it stops.
    await first.fathom.database.run("UPDATE runs SET lease_owner = 'gone|1|dead', lease_until = ? WHERE id = ?", [Date.now() + 50, run.id]);
    await first.close();

    let done = await second.fathom.threads.runs.retrieve(second.accountId, run.thread_id, run.id);
    while (done.status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = await second.fathom.threads.runs.retrieve(second.accountId, run.thread_id, run.id);
    }
    expect(done.status).toBe('completed');
    expect(first.upstream.requests).toHaveLength(1);
    expect(second.upstream.requests).toHaveLength(1);
    const messages = await second.fathom.threads.messages.list(second.accountId, run.thread_id, { order: 'asc' });
    expect(messages.data.map((message) => message.content[0]!.text.value)).toEqual(['hello', 'Answered by the survivor.']);
  });

  it("holds a Webhook card's maxRequestsPerMinute for both processes together", async () => {
    const api = await createTestServer({ 'GET /ping': (_request, response) => respond.json(response, 200, { ok: true }) });
    cleanups.push(() => api.close());
    const dir = dataDir();
    const [one, two] = [await node(dir, []), await node(dir, [])];
    const card = {
      name: 'Pinger',
      config: {
        baseUrl: api.url,
        maxRequestsPerMinute: 3,
        routes: [{ name: 'ping', description: 'Ping.', whenToUse: 'Always.', path: '/ping' }],
      },
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? one : two).fathom.webhooks.execute(card, 'ping', {}, { rateLimitKey: 'agent_1:pinger' }),
      ),
    );
    expect(results.filter((result) => result === 'Error: rate limit reached')).toHaveLength(7);
    expect(api.requests).toHaveLength(3);
  });
});
