import {
  createFakeOpenAIUpstream,
  createTestServer,
  type FakeUpstream,
  respond,
  startEdgeMcpServer,
  type TestMcpServer,
  type TestServer,
} from '@fathom/core/test';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { toFile } from 'openai';
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsServer } from '../src/metrics-server';
import { ordersWorkflow, parseSse } from './agents-workflows';
import { type AccountBody, type AgentEnvelope, json, type StartedJobBody, startFathom, type TestFathom } from './harness';
import { createFakeOsm, pollJob } from './tools-fakes';

/** Every metric the issue names (docs/operations.md): the contract dashboards are built on. */
const CONTRACT: Record<string, { type: PrometheusFamily['type']; labels: string[] }> = {
  fathom_http_requests_total: { type: 'COUNTER', labels: ['method', 'route', 'status'] },
  fathom_http_request_duration_seconds: { type: 'HISTOGRAM', labels: ['method', 'route'] },
  gen_ai_client_operation_duration_seconds: {
    type: 'HISTOGRAM',
    labels: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'],
  },
  gen_ai_client_token_usage: { type: 'HISTOGRAM', labels: ['gen_ai_token_type', 'gen_ai_provider_name', 'gen_ai_request_model'] },
  gen_ai_server_time_to_first_token_seconds: { type: 'HISTOGRAM', labels: ['gen_ai_request_model'] },
  fathom_model_cost_total: { type: 'COUNTER', labels: ['model'] },
  fathom_ingestion_queue_depth: { type: 'GAUGE', labels: [] },
  fathom_ingested_chunks_total: { type: 'COUNTER', labels: [] },
  fathom_ingestion_failures_total: { type: 'COUNTER', labels: ['code'] },
  fathom_search_duration_seconds: { type: 'HISTOGRAM', labels: ['mode'] },
  fathom_tool_jobs_total: { type: 'COUNTER', labels: ['tool', 'status'] },
  fathom_money_total: { type: 'COUNTER', labels: ['kind'] },
  fathom_webhook_calls_total: { type: 'COUNTER', labels: ['outcome'] },
  fathom_mcp_calls_total: { type: 'COUNTER', labels: ['outcome'] },
  fathom_egress_blocked_total: { type: 'COUNTER', labels: [] },
  fathom_lease_queue_depth: { type: 'GAUGE', labels: ['kind'] },
  fathom_lease_queue_lag_seconds: { type: 'GAUGE', labels: ['kind'] },
  fathom_leases_expired_total: { type: 'COUNTER', labels: ['kind'] },
};

/** One scrape: each family (name, help, type) and every sample series by its own name (`x_bucket`, `x_sum`, `x_count`…). */
interface Scrape {
  families: Map<string, PrometheusFamily>;
  series: Map<string, PrometheusSample[]>;
}

/**
 * Parses the exposition with parse-prometheus-text-format. That parser folds a histogram's samples into one
 * series and drops their labels, so the samples are read a second time with histograms declared `untyped`:
 * then `x_bucket{…}`, `x_sum{…}` and `x_count{…}` come back as series of their own, labels kept.
 */
function parseScrape(text: string): Scrape {
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  const series = new Map<string, PrometheusSample[]>();
  for (const family of parsePrometheusTextFormat(text.replace(/^(# TYPE \S+) histogram$/gm, '$1 untyped'))) {
    series.set(family.name, [...(series.get(family.name) ?? []), ...family.metrics]);
  }
  return { families, series };
}

/** The value of series `name` (e.g. `x_total`, `x_count`, `x_sum`) whose labels are exactly `labels`; 0 when it does not exist yet. */
function seriesValue(scrape: Scrape, name: string, labels: Record<string, string>): number {
  const found = (scrape.series.get(name) ?? []).find((entry) => {
    const own = entry.labels ?? {};
    return Object.keys(own).length === Object.keys(labels).length && Object.entries(labels).every(([key, value]) => own[key] === value);
  });
  return found ? Number(found.value ?? 0) : 0;
}

let server: TestFathom;
let upstream: FakeUpstream;
let api: TestServer;
let osm: TestServer;
let metricsPort: FastifyInstance;
let mcp: TestMcpServer;

beforeAll(async () => {
  api = await createTestServer({
    'GET /api/orders/A-100': (_request, response) => respond.json(response, 200, { id: 'A-100', status: 'shipped' }),
  });
  osm = await createFakeOsm();
  // Every turn states its usage, so the token sums the metrics report can be checked exactly.
  mcp = await startEdgeMcpServer();
  upstream = await createFakeOpenAIUpstream((request) => {
    const last = request.messages.at(-1);
    // The MCP workload: one call that succeeds, one the server answers isError.
    if (request.model === 'mcp-model') {
      if (last.role === 'tool') return { content: 'Called both.' };
      return {
        toolCalls: [
          { id: 'call_echo', name: 'echo', arguments: { text: 'hi' } },
          { id: 'call_fail', name: 'fail', arguments: {} },
        ],
      };
    }
    if (request.model === 'fake-model') {
      if (last.role === 'tool') return { content: 'Order A-100 has shipped.', usage: { prompt_tokens: 40, completion_tokens: 6 } };
      return {
        toolCalls: [{ id: 'call_1', name: 'get_order', arguments: { order_id: 'A-100' } }],
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      };
    }
    if (request.stream) return { content: 'streamed answer here', usage: { prompt_tokens: 7, completion_tokens: 3 } };
    return { content: 'plain answer', usage: { prompt_tokens: 11, completion_tokens: 4 } };
  });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      // gpt-test is priced (1 and 2 micro-units per token), the agent's fake-model is not (it costs 0).
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/gpt-test': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
      AGENT_EGRESS_ALLOW: '127.0.0.1',
      FATHOM_TOOLS_NOMINATIM_URL: osm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
    },
  });
  metricsPort = await createMetricsServer(server.fathom);
  await metricsPort.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await metricsPort?.close();
  await server?.close();
  await upstream?.close();
  await api?.close();
  await osm?.close();
  await mcp?.close();
});

async function scrape(): Promise<Scrape> {
  const response = await server.request('/metrics', { apiKey: server.adminKey });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return parseScrape(await response.text());
}

describe('GET /metrics after a scripted workload', () => {
  it('reports every contract metric with its labels, counts matching the workload and token sums equal to the upstream usage', async () => {
    const before = await scrape();
    const client = server.client;

    // Chat, then a stream.
    await client.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hello' }] });
    const stream = await client.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'stream' }],
      stream: true,
    });
    for await (const _chunk of stream);

    // An upload ingested (one short text: one chunk), a corrupt one failing, and a search.
    const store = await client.vectorStores.create({ name: 'metrics' });
    const good = await client.files.create({
      file: await toFile(Buffer.from('Fathom measures what it does.'), 'note.txt'),
      purpose: 'assistants',
    });
    const bad = await client.files.create({ file: await toFile(Buffer.from('%PDF-1.7 not a pdf'), 'broken.pdf'), purpose: 'assistants' });
    const ingested = await client.vectorStores.files.createAndPoll(store.id, { file_id: good.id }, { pollIntervalMs: 20 });
    const failed = await client.vectorStores.files.createAndPoll(store.id, { file_id: bad.id }, { pollIntervalMs: 20 });
    expect(ingested.status).toBe('completed');
    expect(failed.status).toBe('failed');
    const failureCode = failed.last_error!.code;
    const hits = await client.vectorStores.search(store.id, { query: 'what does Fathom measure' });
    expect(hits.data.length).toBe(1);

    // A data-tool job (reserve its ceiling, then charge its cost and release the hold).
    const started = await server.request('/v1/tools/maps', { method: 'POST', json: { query: 'bakeries', location: 'Berlin', limit: 2 } });
    const job = await pollJob(server.request, (await json<StartedJobBody>(started)).data.poll_url);
    expect(job.status).toBe('succeeded');

    // An agent run whose model calls a Webhook route.
    const created = await server.request('/v1/agents', {
      method: 'POST',
      json: { name: 'Orders', workflow: ordersWorkflow({ baseUrl: `${api.url}/api/`, token: 'sk-orders' }) },
    });
    const agentId = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' });
    const run = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'Where is A-100?', variables: { customer_name: 'Ana' }, stream: true },
    });
    expect(parseSse(await run.text()).at(-1)?.event).toBe('run.completed');

    // An outbound call the egress guard refuses (a cloud metadata address).
    await expect(server.fathom.egress.check('http://169.254.169.254/latest/meta-data')).rejects.toThrow(/not allowed/);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => seriesValue(after, name, labels) - seriesValue(before, name, labels);

    for (const [name, { type, labels }] of Object.entries(CONTRACT)) {
      const family = after.families.get(name);
      expect(family, name).toBeDefined();
      expect(family!.type, name).toBe(type);
      const samples = type === 'HISTOGRAM' ? (after.series.get(`${name}_count`) ?? []) : (after.series.get(name) ?? []);
      for (const entry of samples) {
        const names = Object.keys(entry.labels ?? {}).filter((label) => label !== 'error_type');
        expect(names.sort(), name).toEqual([...labels].sort());
      }
    }
    // prom-client's default process and Node.js metrics.
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(after.families.has(name), name).toBe(true);
    }

    // HTTP: route templates, never raw ids.
    expect(delta('fathom_http_requests_total', { method: 'POST', route: '/v1/chat/completions', status: '200' })).toBe(2);
    expect(delta('fathom_http_request_duration_seconds_count', { method: 'POST', route: '/v1/chat/completions' })).toBe(2);
    expect(delta('fathom_http_requests_total', { method: 'POST', route: '/v1/vector_stores/:id/search', status: '200' })).toBe(1);
    expect(delta('fathom_http_requests_total', { method: 'POST', route: '/v1/agents/:id/run', status: '200' })).toBe(1);
    const routes = after.series.get('fathom_http_requests_total')!.map((entry) => entry.labels?.route ?? '');
    expect(routes.filter((route) => /vs_|file-|agent_|job_/.test(route))).toEqual([]);

    // Model calls: two to gpt-test (one streamed), two to the agent's model; tokens equal what the upstream reported.
    const chat = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'fake' };
    expect(delta('gen_ai_client_operation_duration_seconds_count', { ...chat, gen_ai_request_model: 'fake/gpt-test' })).toBe(2);
    expect(delta('gen_ai_client_operation_duration_seconds_count', { ...chat, gen_ai_request_model: 'fake/fake-model' })).toBe(2);
    const tokens = (type: string, model: string) =>
      delta('gen_ai_client_token_usage_sum', { gen_ai_token_type: type, gen_ai_provider_name: 'fake', gen_ai_request_model: model });
    expect(tokens('input', 'fake/gpt-test')).toBe(11 + 7);
    expect(tokens('output', 'fake/gpt-test')).toBe(4 + 3);
    expect(tokens('input', 'fake/fake-model')).toBe(30 + 40);
    expect(tokens('output', 'fake/fake-model')).toBe(5 + 6);
    expect(delta('gen_ai_server_time_to_first_token_seconds_count', { gen_ai_request_model: 'fake/gpt-test' })).toBe(1);
    // What the calls were charged at the price: (11 × 1 + 4 × 2) + (7 × 1 + 3 × 2) micro-units; a free model adds nothing.
    expect(delta('fathom_model_cost_total', { model: 'fake/gpt-test' })).toBeCloseTo(0.000032, 9);
    expect(delta('fathom_model_cost_total', { model: 'fake/fake-model' })).toBe(0);

    // Documents.
    expect(delta('fathom_ingested_chunks_total', {})).toBe(1);
    expect(delta('fathom_ingestion_failures_total', { code: failureCode })).toBe(1);
    expect(delta('fathom_search_duration_seconds_count', { mode: 'hybrid' })).toBe(1);

    // The job, its money, the Webhook call and the refused egress.
    expect(delta('fathom_tool_jobs_total', { tool: 'maps', status: 'succeeded' })).toBe(1);
    expect(delta('fathom_money_total', { kind: 'reserve' })).toBeCloseTo(2, 6);
    expect(delta('fathom_money_total', { kind: 'release' })).toBeCloseTo(2, 6);
    expect(delta('fathom_money_total', { kind: 'charge' })).toBeCloseTo(job.cost ?? 0, 6);
    expect(delta('fathom_webhook_calls_total', { outcome: 'success' })).toBe(1);
    expect(delta('fathom_egress_blocked_total', {})).toBe(1);

    // Database-wide gauges: every queue has drained.
    for (const kind of ['ingestion', 'jobs', 'assistant_runs', 'background_responses', 'agent_runs']) {
      expect(seriesValue(after, 'fathom_lease_queue_depth', { kind }), kind).toBe(0);
      expect(seriesValue(after, 'fathom_lease_queue_lag_seconds', { kind }), kind).toBe(0);
    }
    expect(seriesValue(after, 'fathom_ingestion_queue_depth', {})).toBe(0);
  });

  it('counts a credit, a Webhook call the egress guard refused, and work taken over from an expired lease', async () => {
    const before = await scrape();
    const delta = (after: Scrape, name: string, labels: Record<string, string>) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels);

    // A job left running by a node that stopped (its lease ran out), taken over by a node that starts on the same data.
    const stopped = await startFathom({
      start: false,
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_TOOLS_NOMINATIM_URL: osm.url,
        FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
      },
    });
    try {
      const started = await stopped.request('/v1/tools/maps', {
        method: 'POST',
        json: { query: 'bakeries', location: 'Berlin', limit: 2 },
      });
      const { job_id: jobId, poll_url: pollUrl } = (await json<StartedJobBody>(started)).data;
      await stopped.fathom.database.run(
        `UPDATE tool_jobs SET status = 'running', attempts = 1, lease_owner = 'gone', lease_until = 0 WHERE id = ?`,
        [jobId],
      );
      stopped.fathom.start();
      expect((await pollJob(stopped.request, pollUrl)).status).toBe('succeeded');
    } finally {
      await stopped.close();
    }

    // Its start credited the new node's account: the credit below is counted from here.
    const beforeCredit = await scrape();

    // An admin credit.
    const account = await json<AccountBody>(await server.request('/v1/account'));
    const credited = await server.request(`/v1/admin/accounts/${account.id}/credit`, {
      method: 'POST',
      apiKey: server.adminKey,
      json: { amount: 1.25 },
    });
    expect(credited.status).toBe(200);

    // An agent whose Webhook card points at a cloud metadata address: the guard refuses the call, the run goes on.
    const created = await server.request('/v1/agents', {
      method: 'POST',
      json: { name: 'Blocked orders', workflow: ordersWorkflow({ baseUrl: 'http://169.254.169.254/api/', token: 'sk-orders' }) },
    });
    const agentId = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' });
    const run = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'Where is A-100?', variables: { customer_name: 'Ana' }, stream: true },
    });
    expect(parseSse(await run.text()).at(-1)?.event).toBe('run.completed');

    const after = await scrape();
    expect(
      seriesValue(after, 'fathom_money_total', { kind: 'credit' }) - seriesValue(beforeCredit, 'fathom_money_total', { kind: 'credit' }),
    ).toBeCloseTo(1.25, 6);
    expect(delta(after, 'fathom_webhook_calls_total', { outcome: 'blocked' })).toBe(1);
    expect(delta(after, 'fathom_webhook_calls_total', { outcome: 'success' })).toBe(0);
    expect(delta(after, 'fathom_egress_blocked_total', {})).toBe(1);
    expect(delta(after, 'fathom_leases_expired_total', { kind: 'jobs' })).toBe(1);
    expect(delta(after, 'fathom_tool_jobs_total', { tool: 'maps', status: 'succeeded' })).toBe(1);
  });

  it('counts calls to MCP servers by outcome (fathom_mcp_calls_total)', async () => {
    const before = await scrape();
    const response = await server.client.responses.create({
      model: 'fake/mcp-model',
      input: 'Call both tools.',
      tools: [{ type: 'mcp', server_label: 'edge', server_url: mcp.url, require_approval: 'never' }],
    });
    expect(response.output.filter((item) => item.type === 'mcp_call').map((item) => item.status)).toEqual(['completed', 'failed']);
    const after = await scrape();
    const delta = (outcome: string) =>
      seriesValue(after, 'fathom_mcp_calls_total', { outcome }) - seriesValue(before, 'fathom_mcp_calls_total', { outcome });
    expect([delta('success'), delta('error')]).toEqual([1, 1]);
  });

  it('reads queue depth and lag from the database at scrape time, for work no process of this node holds', async () => {
    // A second node on its own database with its background work stopped: what it queues stays queued.
    const idle = await startFathom({
      start: false,
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_TOOLS_NOMINATIM_URL: osm.url,
        FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
      },
    });
    try {
      for (const query of ['bakeries', 'florists']) {
        const queued = await idle.request('/v1/tools/maps', { method: 'POST', json: { query, location: 'Berlin', limit: 2 } });
        expect(queued.status).toBe(202);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      const response = await idle.request('/metrics', { apiKey: idle.adminKey });
      const scraped = parseScrape(await response.text());
      expect(seriesValue(scraped, 'fathom_lease_queue_depth', { kind: 'jobs' })).toBe(2);
      const lag = seriesValue(scraped, 'fathom_lease_queue_lag_seconds', { kind: 'jobs' });
      expect(lag).toBeGreaterThanOrEqual(0.05);
      expect(lag).toBeLessThan(30);
    } finally {
      await idle.close();
    }
  });

  it('refuses /metrics without the admin key, and serves it without auth on FATHOM_METRICS_PORT', async () => {
    expect((await server.request('/metrics')).status).toBe(401);
    expect((await server.request('/metrics', { apiKey: 'wrong' })).status).toBe(401);
    const port = (metricsPort.server.address() as AddressInfo).port;
    const open = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('# TYPE fathom_http_requests_total counter');
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(404);
  });
});
