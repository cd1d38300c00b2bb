/**
 * Webhook card figures: the overhead of `WebhookToolkit.execute` (template rendering, header layering,
 * egress check with pinned connection, response formatting) against a bare undici request to the same
 * local server, and the compile time of a card of 200 routes.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { EgressGuard } from '../packages/core/src/egress/index.ts';
import { createTestServer, respond } from '../packages/core/src/test/index.ts';
import { WebhookToolkit, type WebhookCard, type WebhookRoute } from '../packages/core/src/webhooks/index.ts';

const CALLS = 3_000;
const WARMUP = 300;
const payload = {
  order: {
    id: 'o-1',
    total: 12.5,
    items: [
      { sku: 'A1', qty: 2 },
      { sku: 'B2', qty: 1 },
    ],
  },
  status: 'paid',
};

function stats(samples: number[]): { mean: number; p50: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return { mean, p50: sorted[Math.floor(sorted.length * 0.5)]!, p95: sorted[Math.floor(sorted.length * 0.95)]! };
}

async function time(calls: number, fn: (index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < calls; index++) {
    const started = performance.now();
    await fn(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

const server = await createTestServer({ '*': (_request, response) => respond.json(response, 200, payload) });
const guard = new EgressGuard({ allow: ['127.0.0.1'] });
const toolkit = new WebhookToolkit({ egress: guard });
const card: WebhookCard = {
  name: 'Bench API',
  config: {
    baseUrl: `${server.url}/api/`,
    auth: { type: 'bearer', token: 'bench-token' },
    routes: [
      {
        name: 'Get Order',
        description: 'Reads one order.',
        whenToUse: 'When an order id is known.',
        method: 'GET',
        path: '/orders/{{id}}',
        queryParams: { expand: '{{expand}}' },
        parameters: [
          { name: 'id', description: 'Order id' },
          { name: 'expand', required: false, description: 'Expand' },
        ],
      },
    ],
  },
};
const bare = new Agent();
const bareCall = async (index: number) => {
  const response = await request(`${server.url}/api/orders/o-${index}?expand=items`, {
    dispatcher: bare,
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer bench-token' },
  });
  return JSON.stringify(await response.body.json(), null, 2);
};
const executeCall = (index: number) => toolkit.execute(card, 'Get Order', { id: `o-${index}`, expand: 'items' });

const check = await executeCall(0);
if (!check.includes('"o-1"')) throw new Error(`execute returned ${check.slice(0, 200)}`);
await time(WARMUP, bareCall);
await time(WARMUP, executeCall);
// Interleave the two series in blocks so drift (GC, CPU frequency) hits both alike.
const bareSamples: number[] = [];
const executeSamples: number[] = [];
for (let block = 0; block < 10; block++) {
  bareSamples.push(...(await time(CALLS / 10, bareCall)));
  executeSamples.push(...(await time(CALLS / 10, executeCall)));
}
const b = stats(bareSamples);
const e = stats(executeSamples);
console.log(`route call, ${CALLS} sequential calls each, local server (keep-alive both sides)`);
console.log(`  bare undici request      mean ${b.mean.toFixed(3)} ms  p50 ${b.p50.toFixed(3)} ms  p95 ${b.p95.toFixed(3)} ms`);
console.log(`  WebhookToolkit.execute   mean ${e.mean.toFixed(3)} ms  p50 ${e.p50.toFixed(3)} ms  p95 ${e.p95.toFixed(3)} ms`);
console.log(
  `  overhead                 ${(e.mean - b.mean).toFixed(3)} ms per call; ratio execute/bare ${(e.mean / b.mean).toFixed(2)}x (p50 ${(e.p50 / b.p50).toFixed(2)}x)`,
);

function bigCard(routes: number): WebhookCard {
  const list: WebhookRoute[] = [];
  for (let index = 0; index < routes; index++) {
    list.push({
      name: `Rota Número ${index} - Ação`,
      description: `Route ${index} does a thing with the catalogue.`,
      whenToUse: `When the user asks about thing ${index}.`,
      responseDescription: 'A JSON object.',
      method: index % 2 ? 'POST' : 'GET',
      path: `/things/${index}/{{id}}`,
      dependsOn: [`Rota Número ${Math.max(0, index - 1)} - Ação`],
      triggers: [`Rota Número ${index + 1} - Ação`],
      parameters: [
        { name: 'id', description: 'Thing id', howToObtain: 'from the list route', example: '42' },
        { name: 'limit', type: 'number', required: false, description: 'Max results', example: '10' },
        { name: 'active', type: 'boolean', description: 'Only active' },
        { name: 'tags', type: 'array', required: false, description: 'Tags' },
        { name: 'filters', type: 'object', required: false, description: 'Filters' },
      ],
    });
  }
  return { name: 'Big', config: { baseUrl: 'https://api.example.com', routes: list } };
}

const big = bigCard(200);
for (let index = 0; index < 20; index++) toolkit.compile(big);
const compileSamples: number[] = [];
let tools = 0;
for (let index = 0; index < 200; index++) {
  const started = performance.now();
  const result = toolkit.compile(big, { reservedNames: ['summarize', 'web_search'] });
  compileSamples.push(performance.now() - started);
  tools = result.tools.length;
}
const c = stats(compileSamples);
console.log(`compile, card of 200 routes x 5 parameters (${tools} tools), 200 runs`);
console.log(
  `  mean ${c.mean.toFixed(3)} ms  p50 ${c.p50.toFixed(3)} ms  p95 ${c.p95.toFixed(3)} ms  (${((c.mean / 200) * 1000).toFixed(1)} µs per route)`,
);

await bare.close();
await guard.close();
await server.close();
