/**
 * MCP server: `tools/call` of `file_search` on `/mcp` against `POST /v1/vector_stores/{id}/search`, the
 * same query of the same store of 100,000 chunks (the search benchmark's seeded topical corpus, hash
 * embedder), through a real `fathom` HTTP server on 127.0.0.1, each on its own keep-alive connection,
 * alternating. An MCP call does more than the route: its session is read from the database, a protocol
 * server and transport are made for the request, and the answer is an SSE stream. Target: MCP p50
 * within 1.5x of the route's.
 *
 * Run: npm run bench -- mcp   (CHUNKS=20000 for a quicker run; SAMPLES, default 300; BACKEND=postgres for
 * PGlite, PostgreSQL compiled to WebAssembly in this process, default 20,000 chunks there)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Fathom, silentLogger } from '@fathom/core';
import { startTestPostgres } from '@fathom/core/test';
import { createServer } from '@fathom/http';
import { Pool } from 'undici';
import { chunkText, queryText, rand, TOPICS } from './search-corpus';

const KEY = 'fth_bench_mcp_key';
const BACKEND = process.env.BACKEND === 'postgres' ? 'postgres' : 'sqlite';
const TOTAL = Number(process.env.CHUNKS ?? (BACKEND === 'postgres' ? 20_000 : 100_000));
const PER_FILE = 100;
const SAMPLES = Number(process.env.SAMPLES ?? 300);

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-mcp-'));
const postgres = BACKEND === 'postgres' ? await startTestPostgres() : undefined;
const fathom = await Fathom.open({
  logger: silentLogger,
  env: {
    FATHOM_DATA_DIR: dataDir,
    FATHOM_API_KEY: KEY,
    FATHOM_EMBEDDER: 'hash',
    FATHOM_ALLOW_REMOTE_MODELS: 'false',
    ...(postgres ? { FATHOM_DATABASE_URL: postgres.url } : {}),
  },
});
const accountId = fathom.bootstrap.accountId!;
const store = await fathom.vectorStores.create(accountId, { name: 'bench' });
// The chunks go straight into the index (as ingestion would put them), with the vectors of the embedder search uses.
const started = performance.now();
for (let file = 0; file < TOTAL / PER_FILE; file++) {
  const topic = file % TOPICS;
  const texts = Array.from({ length: PER_FILE }, () => chunkText(rand() < 0.8 ? topic : Math.floor(rand() * TOPICS)));
  const { embeddings } = await fathom.embedder.embed({ values: texts });
  await fathom.vectorIndex.addFileChunks({
    storeId: store.id,
    fileId: `file-${file}`,
    filename: `doc-${file}.txt`,
    attributes: { topic },
    chunks: texts.map((text, index) => ({ index, text, tokens: fathom.embedder.countTokens(text), vector: embeddings[index]! })),
  });
  if (file % 100 === 99) process.stdout.write(`\r  indexed ${((file + 1) * PER_FILE).toLocaleString()} chunks`);
}
// SQLite: wait until the HNSW worker has every vector (PostgreSQL's index is written with the rows).
const index = fathom.vectorIndex as { flush?: () => Promise<void> };
await index.flush?.();
process.stdout.write('\r');
console.log(`Store: ${TOTAL.toLocaleString()} chunks on ${BACKEND}, indexed in ${((performance.now() - started) / 1000).toFixed(1)} s.`);

const app = await createServer(fathom, { consoleDir: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const routePool = new Pool(origin, { connections: 1, pipelining: 1 });
const mcpPool = new Pool(origin, { connections: 1, pipelining: 1 });
const mcpHeaders = (session?: string) => ({
  authorization: `Bearer ${KEY}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(session ? { 'mcp-session-id': session } : {}),
});
const initialize = await mcpPool.request({
  method: 'POST',
  path: '/mcp',
  headers: mcpHeaders(),
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  }),
});
await initialize.body.text();
const session = initialize.headers['mcp-session-id'] as string;

async function route(query: string): Promise<number> {
  const t0 = performance.now();
  const response = await routePool.request({
    method: 'POST',
    path: `/v1/vector_stores/${store.id}/search`,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, max_num_results: 10 }),
  });
  const body = (await response.body.json()) as { data: unknown[] };
  if (response.statusCode !== 200 || body.data.length === 0) throw new Error(`search answered ${response.statusCode}`);
  return performance.now() - t0;
}

let id = 1;
async function mcp(query: string): Promise<number> {
  const t0 = performance.now();
  const response = await mcpPool.request({
    method: 'POST',
    path: '/mcp',
    headers: mcpHeaders(session),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name: 'file_search', arguments: { query, vector_store_ids: [store.id], max_num_results: 10 } },
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || !text.includes('"structuredContent"'))
    throw new Error(`tools/call answered ${response.statusCode}: ${text}`);
  return performance.now() - t0;
}

const queries = Array.from({ length: SAMPLES }, (_, index) => queryText((index * 7) % TOPICS));
for (const query of queries.slice(0, 30)) {
  await route(query);
  await mcp(query);
}
const routeTimes: number[] = [];
const mcpTimes: number[] = [];
for (const [index, query] of queries.entries()) {
  // Alternate which goes first, so neither always meets a warmer cache.
  if (index % 2) {
    routeTimes.push(await route(query));
    mcpTimes.push(await mcp(query));
  } else {
    mcpTimes.push(await mcp(query));
    routeTimes.push(await route(query));
  }
}
await routePool.close();
await mcpPool.close();
await app.close();
await fathom.close();
await postgres?.close();
rmSync(dataDir, { recursive: true, force: true });

const ms = (value: number) => `${value.toFixed(2)} ms`;
const routeP50 = percentile(routeTimes, 0.5);
const mcpP50 = percentile(mcpTimes, 0.5);
console.log(`file_search of ${TOTAL.toLocaleString()} chunks, max_num_results 10, ${SAMPLES} queries each (alternating):`);
console.log(`  POST /v1/vector_stores/{id}/search  p50 ${ms(routeP50)}  p99 ${ms(percentile(routeTimes, 0.99))}`);
console.log(`  /mcp tools/call file_search         p50 ${ms(mcpP50)}  p99 ${ms(percentile(mcpTimes, 0.99))}`);
console.log(`  ratio of p50s ${(mcpP50 / routeP50).toFixed(2)}x (target <= 1.5x); added p50 ${ms(mcpP50 - routeP50)}`);
if (mcpP50 > 1.5 * routeP50) process.exitCode = 1;
