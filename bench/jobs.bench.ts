/**
 * Data-tool jobs: POST -> 202 latency (p50/p99) and jobs started and finished per second, through the real
 * HTTP server and SQLite queue, with a fast fake provider (the generic HTTP source against a local server in
 * another thread). Load clients run in a worker thread too, so the main thread is the server alone.
 * Targets: p50 under 5 ms, 500 jobs/s started.
 */
import { Fathom, silentLogger } from '@fathom/core';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../packages/http/src/server';

// The fake provider runs in its own thread, like a remote provider: it does not share the server's event loop.
const provider = new Worker(
  `const { createServer } = require('node:http');
   const { parentPort } = require('node:worker_threads');
   const server = createServer((request, response) => {
     request.resume();
     request.on('end', () => {
       response.writeHead(200, { 'content-type': 'application/json' });
       response.end(JSON.stringify({ items: [{ title: 'Engineer at Acme', company: 'Acme' }], cost: 0.01 }));
     });
   });
   server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
   parentPort.on('message', () => server.close(() => process.exit(0)));`,
  { eval: true },
);
const providerPort = await new Promise<number>((resolve) => provider.once('message', resolve));
const providerUrl = `http://127.0.0.1:${providerPort}/jobs`;

const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-jobs-'));
const fathom = await Fathom.open({
  env: {
    FATHOM_DATA_DIR: dataDir,
    FATHOM_EMBEDDER: 'hash',
    FATHOM_ALLOW_REMOTE_MODELS: 'false',
    FATHOM_API_KEY: 'fth_bench_key',
    FATHOM_DEFAULT_BALANCE: '1000000',
    FATHOM_TOOLS_PRONET_JOBS_URL: providerUrl,
    FATHOM_TOOLS_CONCURRENCY: '16',
    FATHOM_TOOLS_SWEEP_MS: '200',
  },
  logger: silentLogger,
});
const app = await createServer(fathom);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const headers = { authorization: 'Bearer fth_bench_key', 'content-type': 'application/json' };
let serial = 0;
const start = async (): Promise<{ status: number; ms: number; id?: string }> => {
  const t0 = performance.now();
  const response = await fetch(`${base}/v1/tools/pronet-jobs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ keyword: `engineer ${serial++}` }),
  });
  const body = (await response.json()) as { data?: { job_id: string } };
  return { status: response.status, ms: performance.now() - t0, id: body.data?.job_id };
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const pending = () =>
  (fathom.db.prepare(`SELECT COUNT(*) AS n FROM tool_jobs WHERE status IN ('queued','running')`).get() as { n: number }).n;
const drain = async () => {
  while (pending() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
};

for (let i = 0; i < 200; i++) await start(); // warm-up
await drain();

// 1. Latency: one client, sequential starts (workers run alongside, as in production).
const latencies: number[] = [];
for (let i = 0; i < 2000; i++) {
  const result = await start();
  if (result.status !== 202) throw new Error(`unexpected ${result.status}`);
  latencies.push(result.ms);
}
await drain();

// 2. Throughput: 32 concurrent clients for 5 s in a worker thread (clients live outside the server's event
// loop, as real ones do); then the time until every job is finished.
const clients = 32;
const durationMs = 5000;
/** Runs `clients` concurrent loops of one request for `durationMs` in a worker thread; answers the count of 2xx. */
const load = (path: string, method: 'GET' | 'POST') =>
  new Promise<number>((resolve, reject) => {
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const { base, headers, clients, durationMs, path, method } = workerData;
       let done = 0, serial = 0;
       const t0 = performance.now();
       Promise.all(Array.from({ length: clients }, async () => {
         while (performance.now() - t0 < durationMs) {
           const body = method === 'POST' ? JSON.stringify({ keyword: 'load ' + serial++ }) : undefined;
           const response = await fetch(base + path, { method, headers, body });
           await response.arrayBuffer();
           if (response.status >= 300) throw new Error('unexpected ' + response.status);
           done++;
         }
       })).then(() => parentPort.postMessage(done), (error) => { throw error; });`,
      { eval: true, workerData: { base, headers, clients, durationMs, path, method } },
    );
    worker.once('message', resolve);
    worker.once('error', reject);
  });

// Baseline: the same clients against GET /health (no auth, no database), to read the figures against.
const h0 = performance.now();
const health = await load('/health', 'GET');
const healthSeconds = (performance.now() - h0) / 1000;

const t0 = performance.now();
const started = await load('/v1/tools/pronet-jobs', 'POST');
const startedSeconds = (performance.now() - t0) / 1000;
await drain();
const finishedSeconds = (performance.now() - t0) / 1000;

// 3. The engine alone (no HTTP): startJob() validates, checks policy, reserves and queues in one transaction.
const coreAccount = fathom.accounts.create({ name: 'core-bench', balance: 1_000_000 }).account;
const coreCount = 5000;
const c0 = performance.now();
for (let i = 0; i < coreCount; i++) fathom.jobs.startJob(coreAccount.id, 'pronet-jobs', { keyword: `core ${i}` });
const coreSeconds = (performance.now() - c0) / 1000;
await drain();

const account = fathom.accounts.authenticate('fth_bench_key')!;
const consistent = [account.id, coreAccount.id].every(
  (id) => Math.abs(fathom.accounts.ledgerSum(id) - fathom.accounts.get(id).balance) < 1e-6,
);

console.table({
  'POST->202 p50 (ms)': percentile(latencies, 50).toFixed(2),
  'POST->202 p99 (ms)': percentile(latencies, 99).toFixed(2),
  'baseline GET /health req/s (same clients)': (health / healthSeconds).toFixed(0),
  'jobs/s started (32 clients, worker thread)': (started / startedSeconds).toFixed(0),
  'jobs/s finished (provider calls, concurrency 16)': (started / finishedSeconds).toFixed(0),
  'jobs in throughput run': started,
  'startJob()/s in core, no HTTP (5000 sequential)': (coreCount / coreSeconds).toFixed(0),
  'ledger equals balance': consistent,
});
console.log(
  `targets: p50 < 5 ms -> ${percentile(latencies, 50) < 5 ? 'met' : 'MISSED'}; 500 jobs/s started -> ${started / startedSeconds >= 500 ? 'met' : 'MISSED'}`,
);

await app.close();
await fathom.close();
await provider.terminate();
rmSync(dataDir, { recursive: true, force: true });
