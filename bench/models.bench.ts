/**
 * Chat completions through Fathom vs straight to the same local fake upstream, in one run.
 * Three processes: the fake upstream, Fathom (HTTP server), and this load generator.
 * Figures: p50/p99 latency (one request at a time), throughput (64 concurrent against an upstream
 * that answers at once, and 32 concurrent against one that takes 50 ms), and Fathom's memory
 * across waves of 1,000 concurrent slow streams.
 * Targets: added p50 < 1 ms, throughput >= 80% of direct, memory flat across the waves.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_KEY as KEY, forkRole, runFathom, runUpstream } from './gateway-processes';

const script = fileURLToPath(import.meta.url);

const role = process.argv[2];

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(message);
  });
}

interface Target {
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  model: string;
}

async function once(target: Target, stream: boolean, model = target.model): Promise<number> {
  const started = performance.now();
  const response = await target.pool.request({
    method: 'POST',
    path: target.path,
    headers: target.headers,
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Tell me about tides.' }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  });
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${await response.body.text()}`);
  const text = await response.body.text();
  if (stream ? !text.includes('[DONE]') : !text.includes('tide')) throw new Error('incomplete answer');
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function latency(target: Target, stream: boolean, count: number) {
  for (let i = 0; i < 200; i++) await once(target, stream);
  const times: number[] = [];
  for (let i = 0; i < count; i++) times.push(await once(target, stream));
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function throughputRound(target: Target, stream: boolean, concurrency: number, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await once(target, stream);
    }),
  );
  return performance.now() - started;
}

/** Alternates short rounds of both targets so background load on the machine hits both alike; req/s each. */
async function throughputPair(
  a: Target,
  b: Target,
  stream: boolean,
  concurrency: number,
  rounds: number,
  perRound: number,
): Promise<[number, number]> {
  await throughputRound(a, stream, concurrency, perRound / 4);
  await throughputRound(b, stream, concurrency, perRound / 4);
  let timeA = 0;
  let timeB = 0;
  for (let round = 0; round < rounds; round++) {
    timeA += await throughputRound(a, stream, concurrency, perRound);
    timeB += await throughputRound(b, stream, concurrency, perRound);
  }
  return [(rounds * perRound) / (timeA / 1000), (rounds * perRound) / (timeB / 1000)];
}

async function main(): Promise<void> {
  const upstream = await forkRole(script, ['upstream']);
  const fathom = await forkRole(script, ['fathom', String(upstream.port)]);
  const connections = 1100;
  const direct: Target = {
    pool: new Pool(`http://127.0.0.1:${upstream.port}`, { connections }),
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json' },
    model: 'm',
  };
  const through: Target = {
    pool: new Pool(`http://127.0.0.1:${fathom.port}`, { connections }),
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    model: 'bench/m',
  };
  const fmt = (n: number) => n.toFixed(3).padStart(8);
  console.log('latency, one request at a time (2,000 requests each, ms)');
  console.log('mode          path      p50        p99');
  const rows: Array<{ mode: string; direct: { p50: number; p99: number }; fathom: { p50: number; p99: number } }> = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'non-stream';
    const d = await latency(direct, stream, 2000);
    const f = await latency(through, stream, 2000);
    rows.push({ mode, direct: d, fathom: f });
    console.log(`${mode.padEnd(13)} direct  ${fmt(d.p50)}  ${fmt(d.p99)}`);
    console.log(
      `${mode.padEnd(13)} fathom  ${fmt(f.p50)}  ${fmt(f.p99)}   added p50 ${fmt(f.p50 - d.p50)} ms ${f.p50 - d.p50 < 1 ? '(target < 1 ms: met)' : '(target < 1 ms: MISSED)'}`,
    );
  }
  console.log('\nthroughput, 64 concurrent (8 alternating rounds of 1,000 requests per path, req/s)');
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'non-stream';
    const [d, f] = await throughputPair(direct, through, stream, 64, 8, 1000);
    const ratio = f / d;
    console.log(
      `${mode.padEnd(13)} direct ${d.toFixed(0).padStart(7)}   fathom ${f.toFixed(0).padStart(7)}   ratio ${(ratio * 100).toFixed(1)}% ${ratio >= 0.8 ? '(target >= 80%: met)' : '(target >= 80%: MISSED)'}`,
    );
  }
  console.log(
    '\nthroughput with a model that thinks 50 ms before answering, 32 concurrent (4 alternating rounds of 500, req/s; ideal 640)',
  );
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'non-stream';
    const [d, f] = await throughputPair({ ...direct, model: 'think' }, { ...through, model: 'bench/think' }, stream, 32, 4, 500);
    const ratio = f / d;
    console.log(
      `${mode.padEnd(13)} direct ${d.toFixed(0).padStart(7)}   fathom ${f.toFixed(0).padStart(7)}   ratio ${(ratio * 100).toFixed(1)}% ${ratio >= 0.8 ? '(target >= 80%: met)' : '(target >= 80%: MISSED)'}`,
    );
  }
  console.log('\nmemory of the Fathom process across waves of 1,000 concurrent streams (~0.5 s each, after GC)');
  const baseline = await ask<{ heapUsed: number; rss: number }>(fathom.child, 'memory');
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1).padStart(6)} MB`;
  console.log(`before        heap ${mb(baseline.heapUsed)}   rss ${mb(baseline.rss)}`);
  const heaps: number[] = [];
  for (let wave = 1; wave <= 4; wave++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: 1000 }, () => once(through, true, 'bench/slow')));
    const elapsed = performance.now() - started;
    const memory = await ask<{ heapUsed: number; rss: number }>(fathom.child, 'memory');
    heaps.push(memory.heapUsed);
    console.log(`wave ${wave}        heap ${mb(memory.heapUsed)}   rss ${mb(memory.rss)}   (1,000 streams in ${elapsed.toFixed(0)} ms)`);
  }
  const growth = heaps[heaps.length - 1]! - heaps[1]!;
  console.log(
    `heap growth wave 2 -> 4: ${(growth / 2 ** 20).toFixed(2)} MB ${Math.abs(growth) < 5 * 2 ** 20 ? '(flat: met)' : '(growing: MISSED)'}`,
  );
  await direct.pool.close();
  await through.pool.close();
  fathom.child.disconnect();
  upstream.child.kill();
  await new Promise((resolve) => fathom.child.once('exit', resolve));
}

if (role === 'upstream') runUpstream();
else if (role === 'fathom') void runFathom(process.argv[3]!);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
