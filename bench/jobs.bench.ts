/**
 * Data-tool jobs: POST -> 202 latency (p50/p99) and jobs started and finished per second, through the real
 * HTTP server and SQLite queue, with a fast fake provider (the generic HTTP source against a local server).
 * Targets: p50 under 5 ms, 500 jobs/s started.
 */
import { Fathom, silentLogger } from '@fathom/core';
import { createServer as createHttpServer } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../packages/http/src/server';

const provider = createHttpServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ items: [{ title: 'Engineer at Acme', company: 'Acme' }], cost: 0.01 }));
  });
});
await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/jobs`;

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
  const response = await fetch(`${base}/v1/tools/pronet-jobs`, { method: 'POST', headers, body: JSON.stringify({ keyword: `engineer ${serial++}` }) });
  const body = (await response.json()) as { data?: { job_id: string } };
  return { status: response.status, ms: performance.now() - t0, id: body.data?.job_id };
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const pending = () => (fathom.db.prepare(`SELECT COUNT(*) AS n FROM tool_jobs WHERE status IN ('queued','running')`).get() as { n: number }).n;
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
const t0 = performance.now();
const started = await new Promise<number>((resolve, reject) => {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const { base, headers, clients, durationMs } = workerData;
     let started = 0, serial = 0;
     const t0 = performance.now();
     Promise.all(Array.from({ length: clients }, async () => {
       while (performance.now() - t0 < durationMs) {
         const response = await fetch(base + '/v1/tools/pronet-jobs', { method: 'POST', headers, body: JSON.stringify({ keyword: 'load ' + serial++ }) });
         await response.arrayBuffer();
         if (response.status !== 202) throw new Error('unexpected ' + response.status);
         started++;
       }
     })).then(() => parentPort.postMessage(started), (error) => { throw error; });`,
    { eval: true, workerData: { base, headers, clients, durationMs } },
  );
  worker.once('message', resolve);
  worker.once('error', reject);
});
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

const account = fathom.accounts.get(fathom.bootstrap.account?.id ?? (fathom.db.prepare('SELECT id FROM accounts LIMIT 1').get() as { id: string }).id);
const consistent = [account.id, coreAccount.id].every((id) => Math.abs(fathom.accounts.ledgerSum(id) - fathom.accounts.get(id).balance) < 1e-6);

console.table({
  'POST->202 p50 (ms)': percentile(latencies, 50).toFixed(2),
  'POST->202 p99 (ms)': percentile(latencies, 99).toFixed(2),
  'jobs/s started (32 clients, worker thread)': (started / startedSeconds).toFixed(0),
  'jobs/s finished (provider calls, concurrency 16)': (started / finishedSeconds).toFixed(0),
  'jobs in throughput run': started,
  'startJob()/s in core, no HTTP (5000 sequential)': (coreCount / coreSeconds).toFixed(0),
  'ledger equals balance': consistent,
});
console.log(`targets: p50 < 5 ms -> ${percentile(latencies, 50) < 5 ? 'met' : 'MISSED'}; 500 jobs/s started -> ${started / startedSeconds >= 500 ? 'met' : 'MISSED'}`);

await app.close();
await fathom.close();
provider.close();
rmSync(dataDir, { recursive: true, force: true });
