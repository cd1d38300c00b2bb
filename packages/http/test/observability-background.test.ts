import { tracer } from '@fathom/core';
import {
  createFakeOpenAIUpstream,
  createTestServer,
  respond,
  startEdgeMcpServer,
  type FakeUpstream,
  type TestMcpServer,
  type TestServer,
} from '@fathom/core/test';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow, parseSse } from './agents-workflows';
import { type AgentEnvelope, json, type StartedJobBody, startFathom, type TestFathom } from './harness';
import { createFakeOsm, pollJob } from './tools-fakes';

/*
 * Issue 21: the request id on every stored object a request created (data-tool jobs, vector store files,
 * Assistants runs, agent runs), and spans for background work (a data-tool job, a file's ingestion, each
 * agent node) that continue the trace of the request that started it. Spans are received by a local
 * OTLP/HTTP collector, as in observability-traces.test.ts.
 */

/** A span as the collector received it (OTLP/JSON), with its attributes as plain values. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.doubleValue ?? value.boolValue;
}

function spansOf(collector: TestServer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const request of collector.requests) {
    const body = request.json as {
      resourceSpans: Array<{
        scopeSpans: Array<{
          spans: Array<Omit<ReceivedSpan, 'attributes'> & { attributes?: Array<{ key: string; value: AnyValue }> }>;
        }>;
      }>;
    };
    for (const resourceSpans of body.resourceSpans) {
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          spans.push({
            ...span,
            parentSpanId: span.parentSpanId || undefined,
            attributes: Object.fromEntries((span.attributes ?? []).map((entry) => [entry.key, plain(entry.value)])),
          });
        }
      }
    }
  }
  return spans;
}

/** Flushes the batch span processor until the collector holds the spans `found` accepts. */
async function waitForSpans(found: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await tracer.flush();
    const spans = spansOf(collector);
    if (found(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`spans missing among ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A caller's W3C trace context: a fresh trace id per test, so each test reads only its own spans. */
function callerTrace(): { traceId: string; traceparent: string } {
  const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = `a${hex(31)}`;
  return { traceId, traceparent: `00-${traceId}-${hex(16)}-01` };
}

/** The server span of the request whose trace is `traceId` (its child of the caller's span). */
function serverSpan(spans: ReceivedSpan[], traceId: string, route: string): ReceivedSpan {
  const span = spans.find(
    (candidate) => candidate.traceId === traceId && candidate.kind === 2 && candidate.attributes['http.route'] === route,
  );
  if (!span) throw new Error(`no server span for ${route}`);
  return span;
}

let collector: TestServer;
let upstream: FakeUpstream;
let api: TestServer;
let osm: TestServer;
let server: TestFathom;
let mcp: TestMcpServer;

beforeAll(async () => {
  mcp = await startEdgeMcpServer();
  collector = await createTestServer({ 'POST /v1/traces': (_request, response) => respond.json(response, 200, {}) });
  api = await createTestServer({
    'GET /api/orders/A-100': (_request, response) => respond.json(response, 200, { id: 'A-100', status: 'shipped' }),
  });
  osm = await createFakeOsm();
  upstream = await createFakeOpenAIUpstream((request) => {
    const last = request.messages.at(-1);
    if (request.model === 'mcp-model') {
      if (last.role === 'tool') return { content: 'Echoed.' };
      return { toolCalls: [{ id: 'call_echo', name: 'echo', arguments: { text: 'hi' } }] };
    }
    if (request.model === 'fake-model' && last.role !== 'tool') {
      return {
        toolCalls: [{ id: 'call_1', name: 'get_order', arguments: { order_id: 'A-100' } }],
        usage: { prompt_tokens: 30, completion_tokens: 5 },
      };
    }
    return { content: 'Order A-100 has shipped.', usage: { prompt_tokens: 40, completion_tokens: 6 } };
  });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      AGENT_EGRESS_ALLOW: '127.0.0.1',
      FATHOM_TOOLS_NOMINATIM_URL: osm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await api?.close();
  await osm?.close();
  // Tracing is per process: off again for the next test file this worker runs.
  await tracer.shutdown();
  await collector?.close();
  await mcp?.close();
});

/** Starts a maps job as request `requestId` (in the caller's trace when given); answers its poll url. */
async function startJob(requestId: string, traceparent?: string): Promise<string> {
  const started = await server.request('/v1/tools/maps', {
    method: 'POST',
    json: { query: 'bakeries', location: 'Berlin', limit: 2 },
    headers: { 'x-request-id': requestId, ...(traceparent ? { traceparent } : {}) },
  });
  expect(started.status).toBe(202);
  expect(started.headers.get('x-request-id')).toBe(requestId);
  return (await json<StartedJobBody>(started)).data.poll_url;
}

/** Creates and publishes the orders agent (its node calls a Webhook route); answers its id. */
async function ordersAgent(): Promise<string> {
  const created = await server.request('/v1/agents', {
    method: 'POST',
    json: { name: 'Orders', workflow: ordersWorkflow({ baseUrl: `${api.url}/api/`, token: 'sk-orders' }) },
  });
  const agentId = (await json<AgentEnvelope>(created)).agent.id;
  expect((await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' })).status).toBe(200);
  return agentId;
}

describe('the request id on the objects a request created', () => {
  it('stores the incoming x-request-id with a data-tool job, a vector store file, an Assistants run and an agent run', async () => {
    const db = server.fathom.database;

    // A data-tool job: the id is stored and the job view (a Fathom object) shows it.
    const pollUrl = await startJob('obs-job-1');
    const job = await pollJob(server.request, pollUrl);
    expect(job).toMatchObject({ status: 'succeeded', request_id: 'obs-job-1' });
    expect(await db.get('SELECT request_id FROM tool_jobs WHERE id = ?', [job.id])).toEqual({ request_id: 'obs-job-1' });
    const listed = await json<{ data: Array<{ id: string; request_id: string | null }> }>(await server.request('/v1/tools/jobs'));
    expect(listed.data.find((entry) => entry.id === job.id)?.request_id).toBe('obs-job-1');

    // A file added to a vector store: the row that queues its ingestion.
    const file = await server.client.files.create({
      file: await toFile(Buffer.from('Boats leave at nine.'), 'boats.txt'),
      purpose: 'assistants',
    });
    const store = await server.client.vectorStores.create({ name: 'request ids' });
    await server.client.vectorStores.files.create(store.id, { file_id: file.id }, { headers: { 'x-request-id': 'obs-ingest-1' } });
    expect(await db.get('SELECT request_id FROM vector_store_files WHERE store_id = ? AND file_id = ?', [store.id, file.id])).toEqual({
      request_id: 'obs-ingest-1',
    });

    // An Assistants run: in the database only (the run object is OpenAI's shape, no field is added to it).
    const assistant = await server.client.beta.assistants.create({ model: 'fake/gpt-test' });
    const thread = await server.client.beta.threads.create({ messages: [{ role: 'user', content: 'Hello' }] });
    const run = await server.client.beta.threads.runs.createAndPoll(
      thread.id,
      { assistant_id: assistant.id },
      { headers: { 'x-request-id': 'obs-run-1' }, pollIntervalMs: 20 },
    );
    expect(run.status).toBe('completed');
    expect(run).not.toHaveProperty('request_id');
    expect(await db.get('SELECT request_id FROM runs WHERE id = ?', [run.id])).toEqual({ request_id: 'obs-run-1' });

    // An agent run.
    const agentId = await ordersAgent();
    const ran = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'Where is A-100?', variables: { customer_name: 'Ana' } },
      headers: { 'x-request-id': 'obs-agent-1' },
    });
    const agentRun = (await json<{ run: { id: string; status: string } }>(ran)).run;
    expect(agentRun.status).toBe('completed');
    expect(await db.get('SELECT request_id FROM agent_runs WHERE id = ?', [agentRun.id])).toEqual({ request_id: 'obs-agent-1' });
  });
});

describe('the request id of model calls made by background work', () => {
  it('charges the model calls of a background response under the request that created it, not the node that ran it', async () => {
    // A node that runs no background work yet: the response waits in the queue until the node starts,
    // outside any request (as on a node that claims it later, or after a restart).
    const node = await startFathom({
      start: false,
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
    });
    try {
      const created = await node.client.responses.create(
        { model: 'fake/gpt-test', input: 'work on this later', background: true },
        { headers: { 'x-request-id': 'obs-background-1' } },
      );
      node.fathom.start();
      let status = created.status;
      const deadline = Date.now() + 15_000;
      while (status === 'queued' || status === 'in_progress') {
        if (Date.now() > deadline) throw new Error(`background response still ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        status = (await node.client.responses.retrieve(created.id)).status;
      }
      expect(status).toBe('completed');
      expect(await node.fathom.database.all('SELECT request_id FROM model_calls')).toEqual([{ request_id: 'obs-background-1' }]);
    } finally {
      await node.close();
    }
  });
});

describe('spans of background work, in the trace of the request that started it', () => {
  it('runs a data-tool job in a fathom.job span, child of the request that queued it', async () => {
    const { traceId, traceparent } = callerTrace();
    const job = await pollJob(server.request, await startJob('obs-job-2', traceparent));
    expect(job.status).toBe('succeeded');
    const spans = await waitForSpans((all) =>
      all.some((span) => span.name === 'fathom.job' && span.attributes['fathom.job_id'] === job.id),
    );
    const span = spans.find((candidate) => candidate.name === 'fathom.job' && candidate.attributes['fathom.job_id'] === job.id)!;
    const post = serverSpan(spans, traceId, '/v1/tools/:tool');
    expect(span).toMatchObject({ traceId, parentSpanId: post.spanId });
    expect(span.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'maps', 'fathom.attempt': 1 });
    expect(post.attributes['fathom.request_id']).toBe('obs-job-2');
  });

  it('ingests a file in a fathom.ingest span, child of the request that added it to the store', async () => {
    const { traceId, traceparent } = callerTrace();
    const file = await server.client.files.create({
      file: await toFile(Buffer.from('Tours start at ten.'), 'tours.txt'),
      purpose: 'assistants',
    });
    const store = await server.client.vectorStores.create({ name: 'traced ingestion' });
    await server.client.vectorStores.files.create(store.id, { file_id: file.id }, { headers: { traceparent } });
    const spans = await waitForSpans((all) => all.some((span) => span.name === 'fathom.ingest' && span.traceId === traceId));
    const ingest = spans.find((span) => span.name === 'fathom.ingest' && span.traceId === traceId)!;
    const post = serverSpan(spans, traceId, '/v1/vector_stores/:id/files');
    expect(ingest).toMatchObject({ parentSpanId: post.spanId });
    expect(ingest.attributes).toMatchObject({ 'fathom.vector_store_id': store.id, 'fathom.file_id': file.id });
    expect((await server.client.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })).status).toBe('completed');
  });

  it('gives each agent node a fathom.agent.node span, parent of its model calls and Webhook call', async () => {
    const { traceId, traceparent } = callerTrace();
    const agentId = await ordersAgent();
    const ran = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'Where is A-100?', variables: { customer_name: 'Ana' }, stream: true },
      headers: { traceparent },
    });
    expect(parseSse(await ran.text()).at(-1)?.event).toBe('run.completed');
    const spans = await waitForSpans((all) => all.some((span) => span.name === 'fathom.agent.node' && span.traceId === traceId));
    const post = serverSpan(spans, traceId, '/v1/agents/:id/run');
    const node = spans.find((span) => span.name === 'fathom.agent.node' && span.traceId === traceId)!;
    expect(node).toMatchObject({ parentSpanId: post.spanId });
    expect(node.attributes).toMatchObject({
      'fathom.agent.node.id': 'support',
      'fathom.agent.node.type': 'agent',
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': agentId,
      'gen_ai.agent.name': 'Support',
      'gen_ai.request.model': 'fake/fake-model',
    });
    const children = spans.filter((span) => span.parentSpanId === node.spanId).map((span) => span.name);
    expect(children.filter((name) => name === 'chat fake/fake-model')).toHaveLength(2);
    expect(children).toContain('webhook get_order');
  });

  it('gives an MCP tool call an execute_tool span under the request, naming the server host and tool but not the arguments or headers', async () => {
    const { traceId, traceparent } = callerTrace();
    const response = await server.client.responses.create(
      {
        model: 'fake/mcp-model',
        input: 'Echo hi.',
        tools: [
          { type: 'mcp', server_label: 'edge', server_url: mcp.url, require_approval: 'never', headers: { 'x-secret': 'sk-mcp-secret' } },
        ],
      },
      { headers: { traceparent } },
    );
    expect(response.output.some((item) => item.type === 'mcp_call' && item.status === 'completed')).toBe(true);
    const spans = await waitForSpans((all) => all.some((span) => span.name === 'execute_tool echo' && span.traceId === traceId));
    const call = spans.find((span) => span.name === 'execute_tool echo' && span.traceId === traceId)!;
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'fathom.mcp.server': new URL(mcp.url).host,
    });
    expect(JSON.stringify(spans.filter((span) => span.traceId === traceId))).not.toContain('sk-mcp-secret');
    // Its ancestors lead to the request's server span.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    let ancestor = call.parentSpanId ? byId.get(call.parentSpanId) : undefined;
    while (ancestor?.parentSpanId && ancestor.kind !== 2) ancestor = byId.get(ancestor.parentSpanId);
    expect(ancestor?.attributes['http.route']).toBe('/v1/responses');
  });
});
