/**
 * MCP client: the latency Fathom adds to one `tools/call` (`McpConnection.callTool`: egress check and
 * pinned connection on every request, result turned into capped text) over the same call made directly
 * with the SDK's `Client` and the global fetch, against the same local MCP server (built with the SDK,
 * Streamable HTTP), one connection each, calls interleaved so both see the same machine load.
 *
 * Run: npm run bench -- mcp-client   (CALLS, default 2000)
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EgressGuard } from '../packages/core/src/egress/index.ts';
import { connectMcpServer } from '../packages/core/src/mcp/index.ts';
import { startEdgeMcpServer } from '../packages/core/src/test/index.ts';

const CALLS = Number(process.env.CALLS ?? 2_000);
const WARMUP = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const server = await startEdgeMcpServer();
const guard = new EgressGuard({ allow: ['127.0.0.1'] });
const fathom = await connectMcpServer({ url: server.url, headers: { authorization: 'Bearer bench' } }, { fetch: guard.fetch });
const direct = new Client({ name: 'bench', version: '1.0.0' });
await direct.connect(
  new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: 'Bearer bench' } } }),
);

const args = { text: 'x'.repeat(200) };
const viaFathom: number[] = [];
const viaSdk: number[] = [];
for (let index = 0; index < WARMUP + CALLS; index++) {
  const order = index % 2 === 0;
  for (const which of order ? ['fathom', 'sdk'] : ['sdk', 'fathom']) {
    const started = performance.now();
    if (which === 'fathom') await fathom.callTool('echo', args);
    else await direct.callTool({ name: 'echo', arguments: args });
    const elapsed = performance.now() - started;
    if (index >= WARMUP) (which === 'fathom' ? viaFathom : viaSdk).push(elapsed);
  }
}
const added = viaFathom.map((value, index) => value - viaSdk[index]!).sort((a, b) => a - b);
viaFathom.sort((a, b) => a - b);
viaSdk.sort((a, b) => a - b);
const row = (name: string, sorted: number[]) =>
  `${name.padEnd(34)} p50 ${percentile(sorted, 0.5).toFixed(3)} ms   p95 ${percentile(sorted, 0.95).toFixed(3)} ms`;
console.log(`tools/call echo, ${CALLS} calls each (after ${WARMUP} warm-up), interleaved`);
console.log(row('SDK Client, global fetch', viaSdk));
console.log(row('Fathom McpConnection (egress)', viaFathom));
console.log(row('added by Fathom (paired difference)', added));
console.log(`p50 target < 2 ms: ${percentile(added, 0.5) < 2 ? 'met' : 'NOT met'}`);

await fathom.close();
await direct.close();
await guard.close();
await server.close();
