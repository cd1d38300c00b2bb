import { startTestPostgres, type TestPostgres, type TestServer } from '@fathom/core/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeOsm } from './tools-fakes';
import { builtCli } from './built-cli';

/**
 * One MCP session across two `fathom serve` processes on one PostgreSQL database, behind a round-robin
 * proxy with no sticky sessions: every request of the official SDK client goes to the other node than
 * the one before. PostgreSQL is PGlite served over the wire (or FATHOM_TEST_DATABASE_URL).
 */
const KEY = 'fth_mcp_cluster_key';

interface Node {
  url: string;
  process: ChildProcess;
  dataDir: string;
}

let postgres: TestPostgres;
let osm: TestServer;
let proxy: Server;
let proxyUrl: string;
const nodes: Node[] = [];
/** Which node answered each request through the proxy, in order (`0` or `1`) with its method. */
const served: Array<{ node: number; method: string }> = [];

async function startNode(): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-mcp-node-'));
  const child = spawn(process.execPath, [await builtCli(), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_DATABASE_URL: postgres.url,
      FATHOM_API_KEY: KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_TOOLS_SWEEP_MS: '100',
      FATHOM_TOOLS_NOMINATIM_URL: osm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
    child.once('exit', (code) => reject(new Error(`fathom serve exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`fathom serve did not start:\n${output}`)), 60_000);
  });
  const node = { url, process: child, dataDir };
  nodes.push(node);
  return node;
}

/** A load balancer at its simplest: each request (and its streamed answer) to the next node in turn. */
async function startRoundRobin(targets: Node[]): Promise<Server> {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % targets.length;
    served.push({ node: index, method: `${incoming.method}` });
    const target = new URL(targets[index]!.url);
    const upstream = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    outgoing.on('close', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function stop(node: Node): Promise<void> {
  if (node.process.exitCode !== null || node.process.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    node.process.once('exit', () => resolve());
    node.process.kill('SIGTERM');
  });
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  osm = await createFakeOsm({ delayMs: 300 });
  // One after the other: the first runs the migrations, the second finds them done.
  const a = await startNode();
  const b = await startNode();
  proxy = await startRoundRobin([a, b]);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 150_000);

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await Promise.all(nodes.map(stop));
  for (const node of nodes) rmSync(node.dataDir, { recursive: true, force: true });
  await osm?.close();
  await postgres?.close();
});

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('/mcp on two nodes behind a round-robin load balancer, one session', () => {
  it('serves every request of one session on whichever node gets it, and a DELETE on one ends it on both', async () => {
    const openai = new OpenAI({ apiKey: KEY, baseURL: `${proxyUrl}/v1`, maxRetries: 0 });
    const file = await openai.files.create({
      file: await toFile(Buffer.from('Ferries leave at 7:15 and 17:45.'), 'ferries.md'),
      purpose: 'assistants',
    });
    const store = await openai.vectorStores.create({ name: 'ferries' });
    expect((await openai.vectorStores.files.createAndPoll(store.id, { file_id: file.id })).status).toBe('completed');

    const first = served.length;
    const transport = new StreamableHTTPClientTransport(new URL(`${proxyUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
    });
    const client = new Client({ name: 'cluster-test', version: '1.0.0' });
    await client.connect(transport);
    const session = transport.sessionId!;
    expect(session).toMatch(/^mcps_/);

    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('maps');
    const search = await client.callTool({
      name: 'file_search',
      arguments: { query: 'when do ferries leave', vector_store_ids: [store.id] },
    });
    expect(text(search)).toContain('ferries.md');
    expect(text(search)).toContain('7:15');
    const progress: Progress[] = [];
    const job = await client.callTool({ name: 'maps', arguments: { query: 'bakery', location: 'Berlin', limit: 1 } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(job.isError).toBeFalsy();
    expect((job.structuredContent as { items: unknown[] }).items).toHaveLength(1);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const read = await client.readResource({ uri: `fathom://vector_stores/${store.id}/files/${file.id}` });
    expect(JSON.stringify(read.contents)).toContain('17:45');

    // Both nodes answered this one session's requests (initialize on one, the rest alternating).
    const ours = served.slice(first);
    expect(ours.filter((request) => request.method === 'POST').length).toBeGreaterThanOrEqual(6);
    expect(new Set(ours.map((request) => request.node))).toEqual(new Set([0, 1]));

    // The DELETE reaches one node; the next request, on the other, finds the session gone.
    const deletedOn = served.length % 2;
    await transport.terminateSession();
    expect(served.at(-1)).toEqual({ node: deletedOn, method: 'DELETE' });
    for (let attempt = 0; attempt < 2; attempt++) {
      const after = await fetch(`${proxyUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
      });
      expect(after.status).toBe(404);
    }
    await client.close();
  });
});
