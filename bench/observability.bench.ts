/**
 * What observability costs a request. Processes: the fake upstream (answers at once), a local OTLP/HTTP
 * collector (accepts and drops), three Fathom servers, and this load generator. The servers: metrics off
 * and tracing off; metrics on (as shipped) and tracing off; metrics on and tracing on to that collector.
 * Metrics have no switch in the product: "off" is this bench making every metric's `inc`/`observe`/`set`
 * a no-op in that server's process. Each Fathom serves 2,000 sequential non-streamed chat completions per
 * round (p50 latency as the client sees it) then 3,000 at 32 concurrent (CPU ms per request of that
 * process, from /proc), three rounds, alternating; the added cost is the paired difference per round.
 * Also measured apart, in this process: the time to record exactly the samples one chat request records
 * (HTTP counter and histogram, GenAI duration and token histograms), and the time of a scrape.
 */
import { metrics } from '@fathom/core';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_KEY, forkRole, runUpstream } from './gateway-processes';
import { processCpuMs, range } from './peers/stats';

const script = fileURLToPath(import.meta.url);
const SEQUENTIAL = Number(process.env.REQUESTS ?? 2000);
const CONCURRENT = Math.round(SEQUENTIAL * 1.5);
const CONCURRENCY = 32;
const ROUNDS = 3;

/** A Fathom server in this process (a forked role), tracing to `collectorPort` when given, recording no metric when `metricsOff`. */
async function runFathom(upstreamPort: string, collectorPort: string | undefined, metricsOff: boolean): Promise<void> {
  const { Fathom, silentLogger } = await import('@fathom/core');
  if (metricsOff) {
    const noop = () => {};
    for (const metric of Object.values(metrics))
      if (metric !== metrics.registry) Object.assign(metric, { inc: noop, observe: noop, set: noop });
  }
  const { createServer: createFathomServer } = await import('../packages/http/src/server');
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-'));
  const fathom = await Fathom.open({
    logger: silentLogger,
    env: {
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: BENCH_KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_PROVIDERS: JSON.stringify({ bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` } }),
      ...(collectorPort ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}` } : {}),
    },
  });
  const app = await createFathomServer(fathom);
  app.server.keepAliveTimeout = 60_000;
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('disconnect', async () => {
    await app.close();
    await fathom.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ port: (app.server.address() as AddressInfo).port });
}

/** An OTLP/HTTP collector that reads each export and answers 200. */
function runCollector(): void {
  let spans = 0;
  const server: Server = createServer((request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    request.on('end', () => {
      spans += bytes > 0 ? 1 : 0;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(spans >= 0 ? 0 : 1));
}

const body = JSON.stringify({ model: 'bench/m', messages: [{ role: 'user', content: 'Tell me about tides.' }] });

async function call(pool: Pool): Promise<void> {
  const response = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${text.slice(0, 200)}`);
}

async function p50(pool: Pool): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now();
    await call(pool);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function cpuPerRequest(pool: Pool, pid: number): Promise<number> {
  let next = 0;
  const before = processCpuMs(pid);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CONCURRENT) await call(pool);
    }),
  );
  return (processCpuMs(pid) - before) / CONCURRENT;
}

/** Microseconds to record what one chat request records, and milliseconds of a scrape. */
async function metricsCost(): Promise<{ recordUs: number; scrapeMs: number }> {
  const record = () => {
    metrics.httpRequests.inc({ method: 'POST', route: '/v1/chat/completions', status: '200' });
    metrics.httpDuration.observe({ method: 'POST', route: '/v1/chat/completions' }, 0.0012);
    const model = { gen_ai_provider_name: 'bench', gen_ai_request_model: 'bench/m' };
    metrics.genAiDuration.observe({ ...model, gen_ai_operation_name: 'chat' }, 0.0008);
    metrics.genAiTokens.observe({ ...model, gen_ai_token_type: 'input' }, 12);
    metrics.genAiTokens.observe({ ...model, gen_ai_token_type: 'output' }, 30);
  };
  for (let i = 0; i < 20_000; i++) record();
  const count = 200_000;
  const started = performance.now();
  for (let i = 0; i < count; i++) record();
  const recordUs = ((performance.now() - started) * 1000) / count;
  await metrics.scrape();
  const scrapeStarted = performance.now();
  for (let i = 0; i < 20; i++) await metrics.scrape();
  return { recordUs, scrapeMs: (performance.now() - scrapeStarted) / 20 };
}

async function main(): Promise<void> {
  const upstream = await forkRole(script, ['upstream']);
  const collector = await forkRole(script, ['collector']);
  const bare = await forkRole(script, ['fathom', String(upstream.port), '-', 'metrics-off']);
  const off = await forkRole(script, ['fathom', String(upstream.port), '-', 'metrics-on']);
  const on = await forkRole(script, ['fathom', String(upstream.port), String(collector.port), 'metrics-on']);
  const servers = [bare, off, on];
  const setups = [
    {
      name: 'metrics off, tracing off',
      pid: bare.child.pid!,
      pool: new Pool(`http://127.0.0.1:${bare.port}`, { connections: CONCURRENCY }),
    },
    { name: 'metrics on, tracing off', pid: off.child.pid!, pool: new Pool(`http://127.0.0.1:${off.port}`, { connections: CONCURRENCY }) },
    { name: 'metrics on, tracing on', pid: on.child.pid!, pool: new Pool(`http://127.0.0.1:${on.port}`, { connections: CONCURRENCY }) },
  ];
  for (const setup of setups) {
    await p50(setup.pool);
    await cpuPerRequest(setup.pool, setup.pid);
  }
  const results = new Map<string, Array<{ p50: number; cpu: number }>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length]!;
      const figures = { p50: await p50(setup.pool), cpu: await cpuPerRequest(setup.pool, setup.pid) };
      results.set(setup.name, [...(results.get(setup.name) ?? []), figures]);
    }
  }
  console.log(
    `chat completions, upstream answers at once: ${SEQUENTIAL} sequential (p50) and ${CONCURRENT} at ${CONCURRENCY} concurrent (CPU), ${ROUNDS} rounds`,
  );
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const row = (name: string, p50s: number[], cpus: number[]) =>
    console.log(
      `${name.padEnd(26)} ${median(p50s).toFixed(3).padEnd(9)} ${range(p50s, 3).padEnd(19)} ${median(cpus).toFixed(3).padEnd(9)} ${range(cpus, 3)}`,
    );
  console.log(`${'setup'.padEnd(26)} ${'p50 ms'.padEnd(9)} ${'(rounds)'.padEnd(19)} ${'CPU ms'.padEnd(9)} (rounds)`);
  for (const setup of setups) {
    const figures = results.get(setup.name)!;
    row(
      setup.name,
      figures.map((f) => f.p50),
      figures.map((f) => f.cpu),
    );
  }
  const paired = (from: string, to: string) => {
    const a = results.get(from)!;
    const b = results.get(to)!;
    return { p50: b.map((f, round) => f.p50 - a[round]!.p50), cpu: b.map((f, round) => f.cpu - a[round]!.cpu) };
  };
  const metricsAdd = paired('metrics off, tracing off', 'metrics on, tracing off');
  const tracingAdd = paired('metrics on, tracing off', 'metrics on, tracing on');
  row('metrics add (paired)', metricsAdd.p50, metricsAdd.cpu);
  row('tracing adds (paired)', tracingAdd.p50, tracingAdd.cpu);
  const { recordUs, scrapeMs } = await metricsCost();
  console.log(`metrics: recording one chat request's samples takes ${recordUs.toFixed(2)} µs; a scrape takes ${scrapeMs.toFixed(2)} ms`);
  for (const setup of setups) await setup.pool.close();
  for (const server of servers) server.child.disconnect();
  collector.child.disconnect();
  upstream.child.kill();
}

const role = process.argv[2];
if (role === 'upstream') runUpstream();
else if (role === 'collector') runCollector();
else if (role === 'fathom')
  void runFathom(process.argv[3]!, process.argv[4] === '-' ? undefined : process.argv[4], process.argv[5] === 'metrics-off');
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
