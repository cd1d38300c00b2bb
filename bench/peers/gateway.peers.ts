/**
 * Fathom's chat gateway side by side with Node gateways a user would pick instead, against the same
 * fake upstream (`bench/gateway-processes.ts`, answering at once): the Portkey gateway
 * (`@portkey-ai/gateway`; non-streaming only — on Node 20 it fails every streaming request with
 * `TypeError: immutable`) and the maintained Portkey fork `@llmops/gateway` (both modes). Each gateway
 * runs in its own process; the load generator sends 64 concurrent requests, gateways alternating in
 * each of REPEATS rounds. CPU time per request is read from /proc for the gateway's process (all
 * threads), so it does not depend on how busy the shared cores are. Streaming overhead per chunk is
 * the CPU difference between streams of 140 and 14 text chunks.
 *
 * Run: npm run bench:peers -- gateway   (REQUESTS=1000 REPEATS=1 for a quick run; PATHS=direct,Fathom for Fathom alone)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Pool } from 'undici';
import { BENCH_KEY, forkRole, LONG_STREAM_CHUNKS, runFathom, runUpstream } from '../gateway-processes';
import { machineLoad, processCpuMs, range } from './stats';

const REQUESTS = Number(process.env.REQUESTS ?? 3000);
const REPEATS = Number(process.env.REPEATS ?? 3);
const CONCURRENCY = 64;
const SHORT_CHUNKS = 14;
const here = dirname(fileURLToPath(import.meta.url));

async function runLlmops(): Promise<void> {
  const { serve } = await import('@hono/node-server');
  const { default: app } = await import('@llmops/gateway');
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.send!({ port: info.port }));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Portkey's own Node server (`build/start-server.js`), headless. */
async function startPortkey(): Promise<{ child: ChildProcess; port: number }> {
  const entry = join(
    dirname(createRequire(join(here, 'package.json')).resolve('@portkey-ai/gateway/package.json')),
    'build/start-server.js',
  );
  const port = await freePort();
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], {
    cwd: here,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      if (response.ok) return { child, port };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('Portkey gateway did not start within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Target {
  name: string;
  pid?: number;
  pool: Pool;
  headers: Record<string, string>;
  model: string;
  streams: boolean;
}

async function once(target: Target, stream: boolean, model = target.model): Promise<void> {
  const response = await target.pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: target.headers,
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Tell me about tides.' }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${target.name}: status ${response.statusCode}: ${text.slice(0, 200)}`);
  if (stream ? !text.includes('[DONE]') : !text.includes('tide')) throw new Error(`${target.name}: incomplete answer`);
}

/** `count` requests at CONCURRENCY; returns req/s and the target process's CPU ms per request. */
async function load(target: Target, stream: boolean, count: number, model?: string): Promise<{ rate: number; cpu: number }> {
  let next = 0;
  const cpuBefore = target.pid ? processCpuMs(target.pid) : 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await once(target, stream, model);
    }),
  );
  const elapsed = performance.now() - started;
  const cpu = target.pid ? (processCpuMs(target.pid) - cpuBefore) / count : 0;
  return { rate: count / (elapsed / 1000), cpu };
}

async function main(): Promise<void> {
  console.log(`Gateway peers — ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, ${machineLoad()} at start`);
  const upstream = await forkRole(fileURLToPath(import.meta.url), ['upstream']);
  const fathom = await forkRole(fileURLToPath(import.meta.url), ['fathom', String(upstream.port)]);
  const llmops = await forkRole(fileURLToPath(import.meta.url), ['llmops']);
  const portkey = await startPortkey();
  const customHost = `http://127.0.0.1:${upstream.port}/v1`;
  const pool = (port: number) => new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const json = { 'content-type': 'application/json' };
  const targets: Target[] = [
    { name: 'direct', pid: upstream.child.pid, pool: pool(upstream.port), headers: json, model: 'm', streams: true },
    {
      name: 'Fathom',
      pid: fathom.child.pid,
      pool: pool(fathom.port),
      headers: { ...json, authorization: `Bearer ${BENCH_KEY}` },
      model: 'bench/m',
      streams: true,
    },
    {
      name: 'Portkey',
      pid: portkey.child.pid,
      pool: pool(portkey.port),
      headers: { ...json, authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': customHost },
      model: 'm',
      streams: false,
    },
    {
      name: 'llmops',
      pid: llmops.child.pid,
      pool: pool(llmops.port),
      headers: { ...json, authorization: 'Bearer sk-bench', 'x-llmops-provider': 'openai', 'x-llmops-custom-host': customHost },
      model: 'm',
      streams: true,
    },
  ];
  // PATHS=direct,Fathom measures only those (quick before/after comparisons of Fathom alone).
  const only = process.env.PATHS?.split(',');
  if (only) targets.splice(0, targets.length, ...targets.filter((target) => only.includes(target.name)));
  const longModel = (target: Target) => (target.name === 'Fathom' ? 'bench/long' : 'long');
  // Warm-up: every path, both modes, long enough for the JIT to settle (the first round ran ~50% dearer with 500).
  for (const target of targets) {
    await load(target, false, 2000);
    if (target.streams) await load(target, true, 2000);
  }

  type Figures = { rate: number; cpu: number };
  const results: Record<string, Figures[]> = {};
  const perChunk: Record<string, number[]> = {};
  for (let round = 0; round < REPEATS; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const stream of [false, true]) {
      for (const target of order) {
        if (stream && !target.streams) continue;
        (results[`${target.name}|${stream}`] ??= []).push(await load(target, stream, REQUESTS));
      }
    }
    for (const target of order) {
      if (!target.streams || target.name === 'direct') continue;
      const short = await load(target, true, REQUESTS / 3);
      const long = await load(target, true, REQUESTS / 3, longModel(target));
      (perChunk[target.name] ??= []).push(((long.cpu - short.cpu) / (LONG_STREAM_CHUNKS - SHORT_CHUNKS)) * 1000);
    }
  }

  const of = (name: string, stream: boolean) => results[`${name}|${stream}`]!;
  console.log(
    `\n${REQUESTS.toLocaleString()} requests per path and round, ${CONCURRENCY} concurrent, ${REPEATS} rounds; upstream answers at once.`,
  );
  console.log('mode        path      req/s            CPU ms per request (gateway process)');
  for (const stream of [false, true]) {
    for (const target of targets) {
      if (stream && !target.streams) continue;
      const figures = of(target.name, stream);
      console.log(
        `${(stream ? 'streaming' : 'non-stream').padEnd(11)} ${target.name.padEnd(9)} ${range(
          figures.map((f) => f.rate),
          0,
        ).padStart(13)}   ${
          target.name === 'direct'
            ? `(upstream ${range(
                figures.map((f) => f.cpu),
                3,
              )})`
            : range(
                figures.map((f) => f.cpu),
                3,
              )
        }`,
      );
    }
  }
  console.log('\nRatios (ranges over rounds):');
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming ' : 'non-stream';
    const own = of('Fathom', stream);
    const direct = of('direct', stream);
    const peers = targets.filter((target) => target.name !== 'direct' && target.name !== 'Fathom' && (!stream || target.streams));
    const cpuRatios = peers.map((peer) => `/ ${peer.name} ${range(own.map((f, round) => f.cpu / of(peer.name, stream)[round]!.cpu))}`);
    console.log(`  ${mode} Fathom CPU per request ${cpuRatios.join('   ')}   (below 1 = Fathom uses less)`);
    console.log(
      `  ${mode} throughput vs direct: Fathom ${range(own.map((f, round) => f.rate / direct[round]!.rate))}` +
        peers.map((peer) => `   ${peer.name} ${range(of(peer.name, stream).map((f, round) => f.rate / direct[round]!.rate))}`).join('') +
        '   (target Fathom >= 0.5)',
    );
  }
  console.log(
    `  streaming CPU per extra chunk, µs: ${Object.entries(perChunk)
      .map(([name, values]) => `${name} ${range(values, 1)}`)
      .join('   ')}`,
  );
  console.log(`Finished: ${machineLoad()}`);

  for (const target of targets) await target.pool.close();
  portkey.child.kill();
  llmops.child.kill();
  fathom.child.disconnect();
  upstream.child.kill();
  await new Promise((resolve) => fathom.child.once('exit', resolve));
}

const role = process.argv[2];
if (role === 'upstream') runUpstream();
else if (role === 'fathom') void runFathom(process.argv[3]!);
else if (role === 'llmops') void runLlmops();
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
