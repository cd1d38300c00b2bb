/**
 * The Batch API against an instant fake embeddings upstream. Three processes: the upstream, Fathom (HTTP
 * server, SQLite) and this load generator.
 * Figures: lines per second of a 10,000-line `/v1/embeddings` batch vs the same 10,000 requests sent
 * synchronously by 16 concurrent clients (target >= 0.8x); Fathom's peak RSS during batches of 2,000,
 * 10,000 and 20,000 lines (target: no growth with the file size); the time from the last line answered
 * to `completed` (output file written).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const KEY = 'fth_bench_key';
const CLIENTS = 16;
const script = fileURLToPath(import.meta.url);
const role = process.argv[2];

/** Answers every `/v1/embeddings` at once with one 8-dimension vector per input. */
function runUpstream(): void {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (data) => (body += data));
    request.on('end', () => {
      const parsed = JSON.parse(body);
      const inputs: unknown[] = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
      const json = JSON.stringify({
        object: 'list',
        model: parsed.model,
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] })),
        usage: { prompt_tokens: 5, total_tokens: 5 },
      });
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      response.end(json);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

/** Fathom's HTTP server with vendor `bench` on the upstream; answers `memory` with its RSS (no GC: the peak is what counts). */
async function runFathom(upstreamPort: string): Promise<void> {
  const { Fathom, silentLogger } = await import('@fathom/core');
  const { createServer: createFathomServer } = await import('../packages/http/src/server');
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-batches-'));
  const fathom = await Fathom.open({
    logger: silentLogger,
    env: {
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_BATCH_CONCURRENCY: String(CLIENTS),
      FATHOM_PROVIDERS: JSON.stringify({ bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` } }),
    },
  });
  const app = await createFathomServer(fathom);
  app.server.keepAliveTimeout = 60_000;
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (message: string) => {
    if (message === 'memory') process.send!({ rss: process.memoryUsage().rss });
    if (message === 'gc') {
      globalThis.gc?.();
      process.send!({ rss: process.memoryUsage().rss });
    }
  });
  process.on('disconnect', async () => {
    await app.close();
    await fathom.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ port: (app.server.address() as AddressInfo).port });
}

function forkRole(args: string[]) {
  const child = fork(script, args, {
    execArgv: ['--conditions=fathom-source', '--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<{ child: typeof child; port: number }>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`child ${args[0]} exited with ${code}`)));
  });
}

const body = (index: number) => ({ model: 'bench/embed', input: `line ${index} of the corpus to embed` });
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function call<T>(pool: Pool, method: 'GET' | 'POST', path: string, payload?: unknown): Promise<T> {
  const response = await pool.request({ method, path, headers, body: payload === undefined ? undefined : JSON.stringify(payload) });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

async function synchronous(pool: Pool, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count) await call(pool, 'POST', '/v1/embeddings', body(next++));
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

interface BatchBody {
  id: string;
  status: string;
  request_counts: { total: number; completed: number; failed: number };
}

async function uploadBatch(port: number, lines: number): Promise<string> {
  const text = Array.from({ length: lines }, (_, index) =>
    JSON.stringify({ custom_id: `l${index}`, method: 'POST', url: '/v1/embeddings', body: body(index) }),
  ).join('\n');
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([text]), 'batch.jsonl');
  const response = await fetch(`http://127.0.0.1:${port}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  return ((await response.json()) as { id: string }).id;
}

/** Runs one batch: lines/s from creation to the last line answered, peak RSS sampled every 50 ms, last line -> completed. */
async function batch(pool: Pool, port: number, fathom: ReturnType<typeof fork>, lines: number) {
  const fileId = await uploadBatch(port, lines);
  let peak = 0;
  const sampler = setInterval(() => fathom.send('memory'), 50);
  const onMemory = (message: { rss?: number }) => {
    if (message.rss) peak = Math.max(peak, message.rss);
  };
  fathom.on('message', onMemory);
  const started = performance.now();
  const created = await call<BatchBody>(pool, 'POST', '/v1/batches', {
    input_file_id: fileId,
    endpoint: '/v1/embeddings',
    completion_window: '24h',
  });
  let lastLineAt = 0;
  let current = created;
  while (current.status !== 'completed') {
    await new Promise((resolve) => setTimeout(resolve, 10));
    current = await call<BatchBody>(pool, 'GET', `/v1/batches/${created.id}`);
    const counts = current.request_counts;
    if (!lastLineAt && counts.total > 0 && counts.completed + counts.failed === counts.total) lastLineAt = performance.now();
    if (current.status === 'failed') throw new Error(`batch failed: ${JSON.stringify(current)}`);
  }
  const completedAt = performance.now();
  clearInterval(sampler);
  fathom.off('message', onMemory);
  if (current.request_counts.completed !== lines) throw new Error(`batch answered ${current.request_counts.completed} of ${lines}`);
  return {
    linesPerSecond: lines / (((lastLineAt || completedAt) - started) / 1000),
    peak,
    finalizeMs: completedAt - (lastLineAt || completedAt),
  };
}

async function main(): Promise<void> {
  const upstream = await forkRole(['upstream']);
  const fathom = await forkRole(['fathom', String(upstream.port)]);
  const pool = new Pool(`http://127.0.0.1:${fathom.port}`, { connections: CLIENTS + 4 });
  try {
    await synchronous(pool, 1000); // warm-up
    await batch(pool, fathom.port, fathom.child, 1000);
    const rounds = [];
    for (let round = 0; round < 2; round++) {
      const sync = await synchronous(pool, 10_000);
      const run = await batch(pool, fathom.port, fathom.child, 10_000);
      rounds.push({ sync, run });
    }
    const sync = Math.max(...rounds.map((round) => round.sync));
    const best = rounds.map((round) => round.run).sort((a, b) => b.linesPerSecond - a.linesPerSecond)[0]!;
    console.log(
      `10,000-line embeddings batch: ${best.linesPerSecond.toFixed(0)} lines/s; 16 synchronous clients: ${sync.toFixed(0)} req/s; ratio ${(best.linesPerSecond / sync).toFixed(2)}x (target >= 0.8x)`,
    );
    console.log(`last line -> completed (output file written): ${best.finalizeMs.toFixed(0)} ms`);
    for (const lines of [2_000, 10_000, 20_000]) {
      const run = await batch(pool, fathom.port, fathom.child, lines);
      console.log(
        `peak RSS during a ${lines.toLocaleString('en-US')}-line batch: ${(run.peak / 2 ** 20).toFixed(0)} MiB (${run.linesPerSecond.toFixed(0)} lines/s, finalize ${run.finalizeMs.toFixed(0)} ms)`,
      );
    }
  } finally {
    await pool.close();
    fathom.child.disconnect();
    upstream.child.kill();
  }
}

if (role === 'upstream') runUpstream();
else if (role === 'fathom') void runFathom(process.argv[3]!);
else await main();
