/**
 * Stored responses: what state costs. A 50-turn `previous_response_id` chain against an upstream that
 * answers at once; at turn 50, the latency of continuing the chain vs a stateless request (`store:
 * false`) sending the same 99 items inline, alternating, on one keep-alive connection. Also
 * `GET /v1/responses/{id}` of a stored 50-turn response. Both backends: SQLite and PostgreSQL (PGlite
 * here, PostgreSQL compiled to WebAssembly in this process; a native server is faster).
 * Targets: added p50 < 2 ms at turn 50; GET p50 < 1 ms.
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fathom, silentLogger } from '@fathom/core';
import { startTestPostgres } from '@fathom/core/test';
import { createServer as createFathomServer } from '@fathom/http';
import { Pool } from 'undici';

const KEY = 'fth_bench_key';
const TURNS = 50;
const SAMPLES = Number(process.env.SAMPLES ?? 300);

/** An upstream that answers every chat request at once with a short fixed answer. */
async function instantUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const frames = [
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'Noted, carry on.' }, finish_reason: null }] })}\n\n`,
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
    'data: [DONE]\n\n',
  ].join('');
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(frames);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

async function measure(backend: 'sqlite' | 'postgres') {
  const upstream = await instantUpstream();
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-responses-'));
  const postgres = backend === 'postgres' ? await startTestPostgres() : undefined;
  const fathom = await Fathom.open({
    logger: silentLogger,
    env: {
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.url } }),
      ...(postgres ? { FATHOM_DATABASE_URL: postgres.url } : {}),
    },
  });
  const app = await createFathomServer(fathom);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const pool = new Pool(origin, { connections: 1, pipelining: 1 });
  const post = async (json: unknown) => {
    const response = await pool.request({
      method: 'POST',
      path: '/v1/responses',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    const parsed = (await response.body.json()) as { id: string; output: Array<{ id: string }> };
    if (response.statusCode !== 200) throw new Error(`POST /v1/responses answered ${response.statusCode}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const text = (turn: number) => `Turn ${turn}: the pilot boat leaves the quay at ${turn}:00 and returns before the tide turns.`;
  // Build the chain, and the same conversation as inline items for the stateless request.
  const inline: unknown[] = [];
  let previous: string | undefined;
  for (let turn = 1; turn < TURNS; turn++) {
    const response = await post({ model: 'fake/m', input: text(turn), ...(previous ? { previous_response_id: previous } : {}) });
    inline.push({ role: 'user', content: text(turn) }, { role: 'assistant', content: 'Noted, carry on.' });
    previous = response.id;
  }
  const stateful: number[] = [];
  const stateless: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    let start = performance.now();
    await post({ model: 'fake/m', input: text(TURNS), previous_response_id: previous });
    stateful.push(performance.now() - start);
    start = performance.now();
    await post({ model: 'fake/m', input: [...inline, { role: 'user', content: text(TURNS) }], store: false });
    stateless.push(performance.now() - start);
  }
  const gets: number[] = [];
  for (let i = 0; i < SAMPLES * 3; i++) {
    const start = performance.now();
    const response = await pool.request({ method: 'GET', path: `/v1/responses/${previous}`, headers: { authorization: `Bearer ${KEY}` } });
    await response.body.arrayBuffer();
    gets.push(performance.now() - start);
  }
  await pool.close();
  await app.close();
  await fathom.close();
  await postgres?.close();
  await upstream.close();
  rmSync(dataDir, { recursive: true, force: true });
  const p50 = (values: number[]) => percentile(values, 0.5);
  return {
    backend,
    statefulP50: p50(stateful),
    statelessP50: p50(stateless),
    addedP50: p50(stateful) - p50(stateless),
    addedP90: percentile(stateful, 0.9) - percentile(stateless, 0.9),
    getP50: p50(gets),
    getP99: percentile(gets, 0.99),
  };
}

const rows = [];
for (const backend of (process.env.BACKENDS ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>)
  rows.push(await measure(backend));
console.log(
  `turn ${TURNS} of a previous_response_id chain vs the same ${2 * TURNS - 1} items sent inline with store: false (${SAMPLES} pairs)`,
);
console.log('backend   | chain p50 ms | stateless p50 ms | added p50 ms | added p90 ms | GET p50 ms | GET p99 ms');
for (const row of rows) {
  console.log(
    `${row.backend.padEnd(9)} | ${row.statefulP50.toFixed(2).padStart(12)} | ${row.statelessP50.toFixed(2).padStart(16)} | ${row.addedP50.toFixed(2).padStart(12)} | ${row.addedP90.toFixed(2).padStart(12)} | ${row.getP50.toFixed(2).padStart(10)} | ${row.getP99.toFixed(2).padStart(10)}`,
  );
}
