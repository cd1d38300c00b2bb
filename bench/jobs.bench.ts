/**
 * Data-tool jobs: POST -> 202 latency (p50/p99) and jobs started and finished per second, through the real
 * HTTP server and queue, with a fast fake provider (the generic HTTP source against a local server in
 * another thread). Load clients run in a worker thread, so the main thread is the server alone.
 * Each backend in turn: SQLite, then PostgreSQL (PGlite, i.e. PostgreSQL compiled to WebAssembly running
 * in this process beside the server; a native PostgreSQL server is faster). Then the cluster figure: the
 * same load against one and against two `fathom serve` processes sharing one PostgreSQL.
 * Targets: p50 under 5 ms, 500 jobs/s started (SQLite).
 */
import { Fathom, silentLogger } from '@fathom/core';
import { startTestPostgres } from '@fathom/core/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createServer } from '../packages/http/src/server';

const KEY = 'fth_bench_key';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/** The fake provider runs in its own thread, like a remote provider: it does not share the server's event loop. */
async function startProvider(): Promise<{ url: string; stop(): Promise<unknown> }> {
  const worker = new Worker(
    `const { createServer } = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const server = createServer((request, response) => {
       request.resume();
       request.on('end', () => {
         response.writeHead(200, { 'content-type': 'application/json' });
         response.end(JSON.stringify({ items: [{ title: 'Engineer at Acme', company: 'Acme' }], cost: 0.01 }));
       });
     });
     server.keepAliveTimeout = 60000;
     server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { url: `http://127.0.0.1:${port}/jobs`, stop: () => worker.terminate() };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

/** `clients` concurrent loops of one request for `durationMs` in a worker thread, spread over `bases`; answers the count of 2xx. */
function load(bases: string[], path: string, method: 'GET' | 'POST', clients = 32, durationMs = 5000): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const { bases, headers, clients, durationMs, path, method } = workerData;
       let done = 0, serial = 0;
       const t0 = performance.now();
       Promise.all(Array.from({ length: clients }, async (_, client) => {
         const base = bases[client % bases.length];
         while (performance.now() - t0 < durationMs) {
           const body = method === 'POST' ? JSON.stringify({ keyword: 'load ' + client + ' ' + serial++ }) : undefined;
           const response = await fetch(base + path, { method, headers, body });
           await response.arrayBuffer();
           if (response.status >= 300) throw new Error('unexpected ' + response.status);
           done++;
         }
       })).then(() => parentPort.postMessage(done), (error) => { throw error; });`,
      { eval: true, workerData: { bases, headers, clients, durationMs, path, method } },
    );
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function single(backend: 'sqlite' | 'postgres', providerUrl: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-jobs-'));
  const postgres = backend === 'postgres' ? await startTestPostgres() : undefined;
  const fathom = await Fathom.open({
    env: {
      FATHOM_DATA_DIR: dataDir,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_API_KEY: KEY,
      FATHOM_DEFAULT_BALANCE: '1000000',
      FATHOM_TOOLS_PRONET_JOBS_URL: providerUrl,
      FATHOM_TOOLS_CONCURRENCY: '16',
      FATHOM_TOOLS_SWEEP_MS: '200',
      ...(postgres ? { FATHOM_DATABASE_URL: postgres.url } : {}),
    },
    logger: silentLogger,
  });
  const app = await createServer(fathom, { consoleDir: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let serial = 0;
  const start = async () => {
    const t0 = performance.now();
    const response = await fetch(`${base}/v1/tools/pronet-jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ keyword: `engineer ${serial++}` }),
    });
    await response.arrayBuffer();
    if (response.status !== 202) throw new Error(`unexpected ${response.status}`);
    return performance.now() - t0;
  };
  const drain = async () => {
    while ((await fathom.jobs.unfinishedCount()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  for (let i = 0; i < 200; i++) await start(); // warm-up
  await drain();
  const latencies: number[] = [];
  for (let i = 0; i < (backend === 'sqlite' ? 2000 : 500); i++) latencies.push(await start());
  await drain();
  const health = await load([base], '/health', 'GET');
  const t0 = performance.now();
  const started = await load([base], '/v1/tools/pronet-jobs', 'POST');
  const startedSeconds = (performance.now() - t0) / 1000;
  await drain();
  const finishedSeconds = (performance.now() - t0) / 1000;
  const account = (await fathom.accounts.authenticate(KEY))!;
  const consistent = Math.abs((await fathom.accounts.ledgerSum(account.id)) - (await fathom.accounts.retrieve(account.id)).balance) < 1e-6;
  await app.close();
  await fathom.close();
  await postgres?.close();
  rmSync(dataDir, { recursive: true, force: true });
  return {
    backend,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    healthPerSecond: health / 5,
    startedPerSecond: started / startedSeconds,
    finishedPerSecond: started / finishedSeconds,
    jobs: started,
    consistent,
  };
}

/** `nodes` `fathom serve` processes on one PostgreSQL, the load spread over them: jobs started and finished per second. */
async function cluster(nodes: number, providerUrl: string) {
  const postgres = await startTestPostgres();
  const cli = fileURLToPath(new URL('../packages/http/src/cli.ts', import.meta.url));
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const bases: string[] = [];
  for (let i = 0; i < nodes; i++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-node-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, ['--conditions=fathom-source', '--import', 'tsx', cli, 'serve'], {
      env: {
        ...process.env,
        PORT: '0',
        LOG_LEVEL: 'error',
        FATHOM_DATA_DIR: dataDir,
        FATHOM_DATABASE_URL: postgres.url,
        FATHOM_API_KEY: KEY,
        FATHOM_DEFAULT_BALANCE: '1000000',
        FATHOM_EMBEDDER: 'hash',
        FATHOM_ALLOW_REMOTE_MODELS: 'false',
        FATHOM_TOOLS_PRONET_JOBS_URL: providerUrl,
        FATHOM_TOOLS_CONCURRENCY: '16',
        FATHOM_TOOLS_SWEEP_MS: '200',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    bases.push(
      await new Promise<string>((resolve) => {
        let output = '';
        child.stdout!.on('data', (data: Buffer) => {
          output += data.toString();
          const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
          if (match) resolve(match[1]!);
        });
      }),
    );
  }
  const unfinished = async () => {
    const response = await fetch(`${bases[0]}/v1/tools/jobs?limit=100`, { headers });
    const page = (await response.json()) as { data: Array<{ status: string }> };
    return page.data.filter((job) => job.status === 'queued' || job.status === 'running').length;
  };
  const t0 = performance.now();
  const started = await load(bases, '/v1/tools/pronet-jobs', 'POST');
  const startedSeconds = (performance.now() - t0) / 1000;
  while ((await unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const finishedSeconds = (performance.now() - t0) / 1000;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  await postgres.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  return { nodes, startedPerSecond: started / startedSeconds, finishedPerSecond: started / finishedSeconds, jobs: started };
}

const provider = await startProvider();
const backends = (process.env.BACKENDS ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
const rows = [];
for (const backend of backends) rows.push(await single(backend, provider.url));
console.log('one server process, 32 clients for 5 s (PostgreSQL = PGlite in the bench process)');
console.table(
  Object.fromEntries(
    rows.map((row) => [
      row.backend,
      {
        'POST->202 p50 ms': row.p50.toFixed(2),
        'POST->202 p99 ms': row.p99.toFixed(2),
        'GET /health req/s (same clients)': row.healthPerSecond.toFixed(0),
        'jobs started/s': row.startedPerSecond.toFixed(0),
        'jobs finished/s': row.finishedPerSecond.toFixed(0),
        jobs: row.jobs,
        'ledger = balance': row.consistent,
      },
    ]),
  ),
);
const sqlite = rows.find((row) => row.backend === 'sqlite');
if (sqlite) {
  console.log(
    `targets (SQLite): p50 < 5 ms -> ${sqlite.p50 < 5 ? 'met' : 'MISSED'}; 500 jobs/s started -> ${sqlite.startedPerSecond >= 500 ? 'met' : 'MISSED'}`,
  );
}
if (process.env.CLUSTER !== '0') {
  const one = await cluster(1, provider.url);
  const two = await cluster(2, provider.url);
  console.log('fathom serve processes sharing one PostgreSQL (PGlite served over the wire from the bench process), 32 clients for 5 s');
  console.table(
    Object.fromEntries(
      [one, two].map((row) => [
        `${row.nodes} node(s)`,
        { 'jobs started/s': row.startedPerSecond.toFixed(0), 'jobs finished/s': row.finishedPerSecond.toFixed(0), jobs: row.jobs },
      ]),
    ),
  );
  console.log(`two nodes / one node, jobs finished per second: ${(two.finishedPerSecond / one.finishedPerSecond).toFixed(2)}`);
}
await provider.stop();
