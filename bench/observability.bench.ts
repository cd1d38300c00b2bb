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
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { BENCH_KEY, forkRole, runFathom, runUpstream } from './gateway-processes';
import { figuresTable, measurePairedRounds, type PairedSetup, pairedDifference, poolsFor, printSetups } from './paired-rounds';

const script = fileURLToPath(import.meta.url);
const SEQUENTIAL = Number(process.env.REQUESTS ?? 2000);
const CONCURRENT = Math.round(SEQUENTIAL * 1.5);
const CONCURRENCY = 32;
const ROUNDS = 3;

/** A Fathom server in this process (a forked role), tracing to `collectorPort` when given, recording no metric when `metricsOff`. */
function runObservedFathom(upstreamPort: string, collectorPort: string | undefined, metricsOff: boolean): Promise<void> {
  if (metricsOff) {
    const noop = () => {};
    for (const metric of Object.values(metrics))
      if (metric !== metrics.registry) Object.assign(metric, { inc: noop, observe: noop, set: noop });
  }
  return runFathom(upstreamPort, collectorPort ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}` } : {});
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
  const setup = (name: string, node: typeof bare): PairedSetup => ({
    name,
    pids: [node.child.pid!],
    pools: poolsFor([node], CONCURRENCY),
    key: BENCH_KEY,
  });
  const setups = [setup('metrics off, tracing off', bare), setup('metrics on, tracing off', off), setup('metrics on, tracing on', on)];
  const results = await measurePairedRounds(setups, {
    sequential: SEQUENTIAL,
    concurrent: CONCURRENT,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  console.log(
    `chat completions, upstream answers at once: ${SEQUENTIAL} sequential (p50) and ${CONCURRENT} at ${CONCURRENCY} concurrent (CPU), ${ROUNDS} rounds`,
  );
  const row = figuresTable(26);
  printSetups(row, results);
  const metricsAdd = pairedDifference(results, 'metrics off, tracing off', 'metrics on, tracing off');
  const tracingAdd = pairedDifference(results, 'metrics on, tracing off', 'metrics on, tracing on');
  row('metrics add (paired)', metricsAdd.p50, metricsAdd.cpu);
  row('tracing adds (paired)', tracingAdd.p50, tracingAdd.cpu);
  const { recordUs, scrapeMs } = await metricsCost();
  console.log(`metrics: recording one chat request's samples takes ${recordUs.toFixed(2)} µs; a scrape takes ${scrapeMs.toFixed(2)} ms`);
  for (const setup of setups) for (const pool of setup.pools) await pool.close();
  for (const server of servers) server.child.disconnect();
  collector.child.disconnect();
  upstream.child.kill();
}

const role = process.argv[2];
if (role === 'upstream') runUpstream();
else if (role === 'collector') runCollector();
else if (role === 'fathom')
  void runObservedFathom(process.argv[3]!, process.argv[4] === '-' ? undefined : process.argv[4], process.argv[5] === 'metrics-off');
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
