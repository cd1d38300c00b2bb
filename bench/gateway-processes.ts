/**
 * The processes of the gateway benchmarks (`models.bench.ts`, `peers/gateway.peers.ts`): a fake
 * OpenAI-compatible upstream and Fathom's HTTP server with one vendor `bench` pointed at it. Each
 * runs in its own child process and reports its port over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BENCH_KEY = 'fth_bench_key';

/**
 * Runs `script` again in a child process as `args[0]` (its role) and resolves once the child reports
 * its port over IPC. BENCH_CPU_PROF=<dir>: a CPU profile of the `fathom` role, written when it exits.
 */
export function forkRole(script: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const profile = process.env.BENCH_CPU_PROF && args[0] === 'fathom' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(script, args, {
    execArgv: ['--conditions=fathom-source', '--import', 'tsx', '--expose-gc', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`child ${args[0]} exited with ${code}`)));
  });
}

/** Text chunks of a `long` stream (model `long`); other models stream one chunk per word of the answer (14). */
export const LONG_STREAM_CHUNKS = 140;

/**
 * The fake upstream: a fixed answer, streamed one word per chunk (14 chunks, plus the role chunk, the
 * finish chunk and, when asked, a usage chunk). Model `slow` waits 40 ms between chunks, `think`
 * waits 50 ms before it answers, `long` streams 140 word chunks.
 */
export function runUpstream(): void {
  const words = 'The tide rises and falls twice a day under the pull of the moon.'.split(/(?<= )/);
  const json = JSON.stringify({
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 },
  });
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const frames = [chunk({ role: 'assistant', content: '' }), ...words.map((word) => chunk({ content: word })), chunk({}, 'stop')];
  const longWords = Array.from({ length: LONG_STREAM_CHUNKS }, (_, i) => words[i % words.length]!);
  const longFrames = [chunk({ role: 'assistant', content: '' }), ...longWords.map((word) => chunk({ content: word })), chunk({}, 'stop')];
  const usage = `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 } })}\n\n`;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (data) => (body += data));
    request.on('end', async () => {
      const parsed = JSON.parse(body);
      // Model `think`: a model that takes 50 ms before it answers (real ones take longer).
      if (parsed.model === 'think') await new Promise((resolve) => setTimeout(resolve, 50));
      if (!parsed.stream) {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
        response.end(json);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const slow = parsed.model === 'slow';
      for (const frame of parsed.model === 'long' ? longFrames : frames) {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 40));
        if (response.destroyed) return;
        response.write(frame);
      }
      if (parsed.stream_options?.include_usage) response.write(usage);
      response.end('data: [DONE]\n\n');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

/**
 * Fathom's HTTP server with one vendor `bench` pointed at the upstream, plus the settings in `env`;
 * answers `memory` with its heap after GC.
 */
export async function runFathom(upstreamPort: string, env: Record<string, string> = {}): Promise<void> {
  const { Fathom, silentLogger } = await import('@fathom/core');
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
      ...env,
    },
  });
  const app = await createFathomServer(fathom);
  app.server.keepAliveTimeout = 60_000;
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (message: string) => {
    if (message === 'memory') {
      globalThis.gc?.();
      const usage = process.memoryUsage();
      process.send!({ heapUsed: usage.heapUsed, rss: usage.rss });
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

/**
 * The floor any Node gateway stands on: `node:http` in, undici out, the body parsed and re-encoded
 * (model renamed), streams re-framed event by event with writes corked per network chunk — and nothing
 * else (no authentication, validation, usage records, ids, abort handling or error mapping). Not a
 * product: the reference point for what Fathom's own per-request work costs.
 */
export async function runBareProxy(upstreamPort: string): Promise<void> {
  const { Pool } = await import('undici');
  const upstream = new Pool(`http://127.0.0.1:${upstreamPort}`, { connections: 256 });
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(parts).toString()) as { model: string; stream?: boolean };
      body.model = body.model.replace(/^bench\//, '');
      const answer = await upstream.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!body.stream) {
        const json = (await answer.body.json()) as { model: string };
        json.model = `bench/${json.model}`;
        const text = JSON.stringify(json);
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        response.end(text);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let pending = '';
      for await (const part of answer.body) {
        pending += part.toString();
        response.cork();
        for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
          const data = pending.slice(6, end);
          pending = pending.slice(end + 2);
          if (data === '[DONE]') {
            response.write('data: [DONE]\n\n');
            continue;
          }
          const event = JSON.parse(data) as { model: string };
          event.model = `bench/${event.model}`;
          response.write(`data: ${JSON.stringify(event)}\n\n`);
        }
        process.nextTick(() => response.uncork());
      }
      response.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}
