import { createTestServer, respond, startTestPostgres, type TestPostgres, type TestServer } from '@fathom/core/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountBody,
  type CreatedAccountBody,
  type CreatedKeyBody,
  type JobEnvelope,
  json,
  type LedgerBody,
  type StartedJobBody,
} from './harness';
import { createFakeOsm, pollJob } from './tools-fakes';
import { builtCli } from './built-cli';

/**
 * Two `fathom serve` processes on one PostgreSQL database, as behind a load balancer: what one node
 * starts, the other sees and finishes; a node killed with SIGKILL loses nothing; money and keys hold
 * across nodes. PostgreSQL is PGlite served over the wire (or FATHOM_TEST_DATABASE_URL).
 */
const KEY = 'fth_cluster_key';
const ADMIN = 'fth_cluster_admin';

interface Node {
  url: string;
  client: OpenAI;
  process: ChildProcess;
  dataDir: string;
  request(path: string, init?: RequestInit & { json?: unknown; apiKey?: string }): Promise<Response>;
}

let postgres: TestPostgres;
let osm: TestServer;
let slowOsm: TestServer;
/** Overpass queries the held map source received, and what lets its first one answer. */
let heldQueries = 0;
let releaseHeld: () => void = () => {};
const nodes: Node[] = [];

async function startNode(extra: Record<string, string> = {}): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-node-'));
  const child = spawn(process.execPath, [await builtCli(), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_DATABASE_URL: postgres.url,
      FATHOM_API_KEY: KEY,
      FATHOM_ADMIN_KEY: ADMIN,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_LEASE_SECONDS: '2',
      FATHOM_TOOLS_SWEEP_MS: '100',
      FATHOM_TOOLS_NOMINATIM_URL: osm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
    child.once('exit', (code) => reject(new Error(`fathom serve exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`fathom serve did not start:\n${output}`)), 60_000);
  });
  const node: Node = {
    url,
    dataDir,
    process: child,
    client: new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 }),
    request: (path, init = {}) => {
      const { json, apiKey, headers, ...rest } = init;
      return fetch(`${url}${path}`, {
        ...rest,
        headers: {
          authorization: `Bearer ${apiKey ?? KEY}`,
          ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(headers as object),
        },
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
  };
  nodes.push(node);
  return node;
}

async function pollStatus(node: Node, pollUrl: string): Promise<string> {
  return (await json<JobEnvelope>(await node.request(pollUrl))).data.status;
}

function kill(node: Node): Promise<void> {
  return stop(node, 'SIGKILL');
}

/** Stops a node (by default gracefully: it gives its leases back) and waits for its process to end. */
function stop(node: Node, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.process.exitCode !== null || node.process.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    node.process.once('exit', () => resolve());
    node.process.kill(signal);
  });
}

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  osm = await createFakeOsm();
  // The first map query waits until the test lets it go (or its node dies): the job is surely running.
  slowOsm = await createFakeOsm({ holdFirst: new Promise<void>((resolve) => (releaseHeld = resolve)), onQuery: () => heldQueries++ });
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.filter((node) => node.process.exitCode === null && node.process.signalCode === null).map((node) => kill(node)));
  for (const node of nodes) rmSync(node.dataDir, { recursive: true, force: true });
  await osm?.close();
  releaseHeld();
  await slowOsm?.close();
  await postgres?.close();
});

describe('two server processes on one PostgreSQL database', () => {
  let a: Node;
  let b: Node;
  beforeAll(async () => {
    // One after the other: the first runs the migrations, the second finds them done.
    a = await startNode();
    b = await startNode();
  }, 150_000);
  // Stopped before the next scenario: its nodes are configured otherwise (another map source and
  // embedder) and must not claim its work from the shared database.
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
  });

  it('searches on one node a file uploaded and added on the other', async () => {
    const file = await a.client.files.create({
      file: await toFile(Buffer.from('Ferries to the island leave at 7:15 and 17:45.'), 'ferries.md'),
      purpose: 'assistants',
    });
    const store = await a.client.vectorStores.create({ name: 'ferries', file_ids: [file.id] });
    const done = await until(async () => {
      const seen = await b.client.vectorStores.retrieve(store.id);
      return seen.file_counts.completed === 1 && seen;
    });
    expect(done.file_counts).toMatchObject({ completed: 1, in_progress: 0, failed: 0 });
    const hits = await b.client.vectorStores.search(store.id, { query: 'when do ferries leave' });
    expect(hits.data[0]!.filename).toBe('ferries.md');
    expect(Buffer.from(await (await b.client.files.content(file.id)).arrayBuffer()).toString()).toContain('7:15');
  });

  it('polls on one node a job started on the other, billed once', async () => {
    const started = await json<StartedJobBody>(
      await a.request('/v1/tools/maps', { method: 'POST', json: { query: 'bakery', location: 'Berlin', limit: 1 } }),
    );
    const job = await pollJob(b.request, started.data.poll_url);
    expect(job.status).toBe('succeeded');
    const ledger = (await json<LedgerBody>(await b.request('/v1/account/ledger?limit=100'))).data.filter(
      (entry) => entry.ref === started.data.job_id,
    );
    expect(ledger.map((entry) => entry.kind).sort()).toEqual(['charge', 'release', 'reserve']);
  });

  it('accepts at most five of many concurrent starts split across both nodes against a balance of five ceilings', async () => {
    const created = await json<CreatedAccountBody>(
      await a.request('/v1/admin/accounts', { method: 'POST', apiKey: ADMIN, json: { name: 'five', balance: 10 } }),
    );
    const starts = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        (index % 2 ? a : b).request('/v1/tools/maps', {
          method: 'POST',
          apiKey: created.api_key,
          json: { query: `shop ${index}`, location: 'Berlin' },
        }),
      ),
    );
    expect(starts.filter((response) => response.status === 202)).toHaveLength(5);
    expect(starts.filter((response) => response.status === 402)).toHaveLength(19);
    // Once every accepted job ended, the ledger (read on one node) and the balance (on the other) agree.
    for (const response of starts.filter((start) => start.status === 202)) {
      await pollJob(b.request, (await json<StartedJobBody>(response)).data.poll_url, created.api_key);
    }
    const ledger = (await json<LedgerBody>(await b.request('/v1/account/ledger?limit=100', { apiKey: created.api_key }))).data;
    expect(ledger.filter((entry) => entry.kind === 'reserve')).toHaveLength(5);
    const account = await json<AccountBody>(await a.request('/v1/account', { apiKey: created.api_key }));
    const sum = ledger.reduce((total, entry) => total + entry.amount, 0);
    expect(account.balance).toBeGreaterThanOrEqual(0);
    expect(account.balance).toBeCloseTo(sum, 6);
  });

  it('refuses on every node a key revoked on one', async () => {
    const created = await json<CreatedAccountBody>(
      await a.request('/v1/admin/accounts', { method: 'POST', apiKey: ADMIN, json: { name: 'revoked' } }),
    );
    const key = await json<CreatedKeyBody>(await a.request(`/v1/admin/accounts/${created.id}/keys`, { method: 'POST', apiKey: ADMIN }));
    expect((await b.request('/v1/account', { apiKey: key.api_key })).status).toBe(200);
    expect((await a.request(`/v1/admin/keys/${key.id}`, { method: 'DELETE', apiKey: ADMIN })).status).toBe(200);
    expect((await b.request('/v1/account', { apiKey: key.api_key })).status).toBe(401);
  });
});

describe('a node killed with SIGKILL loses nothing', () => {
  it('the other node finishes its ingestion and its job: nothing indexed twice, nothing charged twice', async () => {
    // An embeddings service and a map source that hold their calls until the node dies keep both pieces
    // of work running there; the survivor's calls after the takeover are answered.
    let embeddingCalls = 0;
    let releaseEmbeddings: () => void = () => {};
    const embeddingsReleased = new Promise<void>((resolve) => (releaseEmbeddings = resolve));
    const embeddings = await createTestServer({
      'POST /v1/embeddings': async (request, response) => {
        // From the fourth call on, calls wait until the test lets them go (or their node dies).
        if (++embeddingCalls > 3) {
          await Promise.race([embeddingsReleased, new Promise((resolve) => response.once('close', resolve))]);
          if (response.destroyed) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
        const inputs = (request.json as { input: string[] }).input;
        const data = inputs.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: 16 }, (_, d) => ((text.length * (d + 1)) % 97) / 97 + 0.01),
        }));
        respond.json(response, 200, { object: 'list', data, model: 'slow', usage: { prompt_tokens: 1, total_tokens: 1 } });
      },
    });
    const slow = {
      FATHOM_TOOLS_NOMINATIM_URL: slowOsm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${slowOsm.url}/api/interpreter`,
      FATHOM_EMBEDDER: 'openai',
      FATHOM_EMBEDDING_BASE_URL: `${embeddings.url}/v1`,
      FATHOM_EMBEDDING_MODEL: 'slow',
      FATHOM_EMBEDDING_DIMENSIONS: '16',
      FATHOM_EMBEDDING_BATCH_SIZE: '4',
      AGENT_EGRESS_ALLOW: '127.0.0.1',
    };
    // Only the doomed node runs while the work is claimed, so both pieces surely run there.
    const doomed = await startNode(slow);
    const text = Array.from({ length: 4000 }, (_, i) => `Line ${i}: the harbour log records tide ${i % 17} and wind ${i % 9}.`).join('\n');
    const file = await doomed.client.files.create({ file: await toFile(Buffer.from(text), 'log.txt'), purpose: 'assistants' });
    const store = await doomed.client.vectorStores.create({ name: 'log' });
    await doomed.client.vectorStores.files.create(store.id, { file_id: file.id });
    const started = await json<StartedJobBody>(
      await doomed.request('/v1/tools/maps', { method: 'POST', json: { query: 'harbour cafe', location: 'Kiel', limit: 1 } }),
    );
    await until(async () => embeddingCalls > 3 && heldQueries > 0);
    const survivor = await startNode(slow);
    expect((await survivor.client.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })).status).toBe('in_progress');
    expect(await pollStatus(survivor, started.data.poll_url)).toBe('running');
    await kill(doomed);
    releaseEmbeddings();
    releaseHeld();

    const storeFile = await until(async () => {
      const seen = await survivor.client.vectorStores.files.retrieve(file.id, { vector_store_id: store.id });
      return seen.status !== 'in_progress' && seen;
    }, 60_000);
    expect(storeFile.status).toBe('completed');
    const content = await survivor.client.vectorStores.files.content(file.id, { vector_store_id: store.id });
    const parsed = content.data.map((part) => part.text).join('\n');
    expect(parsed.match(/Line 3999:/g)).toHaveLength(1);
    expect(parsed.match(/Line 0:/g)).toHaveLength(1);

    const job = await pollJob(survivor.request, started.data.poll_url, KEY, 60_000);
    expect(job.status).toBe('succeeded');
    const ledger = (await json<LedgerBody>(await survivor.request('/v1/account/ledger?limit=100'))).data.filter(
      (entry) => entry.ref === started.data.job_id,
    );
    expect(ledger.map((entry) => entry.kind).sort()).toEqual(['charge', 'release', 'reserve']);
    await embeddings.close();
  }, 120_000);
});
