import { Fathom, silentLogger, tracer } from '@fathom/core';
import { createFakeOpenAIUpstream, createTestServer, type FakeUpstream, respond, type TestServer } from '@fathom/core/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

/** An OTLP/JSON attribute value (the OTLP protobuf definitions in their JSON mapping). */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

/** A span as the collector received it. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

type KeyValue = { key: string; value: AnyValue };

/** Decodes the OTLP/HTTP JSON export requests the collector received into spans. */
function spansOf(collector: TestServer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const request of collector.requests) {
    const body = request.json as {
      resourceSpans: Array<{
        resource: { attributes: KeyValue[] };
        scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes?: KeyValue[] }> }>;
      }>;
    };
    for (const resourceSpans of body.resourceSpans) {
      const service = plain(resourceSpans.resource.attributes.find((entry) => entry.key === 'service.name')!.value) as string;
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          spans.push({
            ...span,
            parentSpanId: span.parentSpanId || undefined,
            service,
            attributes: Object.fromEntries((span.attributes ?? []).map((entry) => [entry.key, plain(entry.value)])),
          });
        }
      }
    }
  }
  return spans;
}

/** Flushes the batch span processor and waits until the collector holds a span matching `found`. */
async function waitForSpan(collector: TestServer, found: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await tracer.flush();
    const spans = spansOf(collector);
    if (spans.some(found)) return spans;
    if (Date.now() > deadline) throw new Error(`no such span among ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const CALLER_SPAN = 'eee19b7ec3c1b174';

let collector: TestServer;
let upstream: FakeUpstream;
let server: TestFathom;
/** The node that runs background work: a second Fathom on the same PostgreSQL database, or the server itself on SQLite. */
let worker: Fathom | undefined;
let workerDir: string | undefined;
let storeId: string;
let env: Record<string, string>;

beforeAll(async () => {
  collector = await createTestServer({ 'POST /v1/traces': (_request, response) => respond.json(response, 200, {}) });
  upstream = await createFakeOpenAIUpstream([]);
  env = {
    FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_SERVICE_NAME: 'fathom-under-test',
  };
  // The API node runs no background responses: on PostgreSQL another node claims them from the database.
  server = await startFathom({ env, start: false });
  if (server.databaseUrl) server.fathom.startIngestion();
  else server.fathom.start();
  const file = await server.client.files.create({
    file: await toFile(Buffer.from('Refunds for cancelled boat tours are paid within five working days.'), 'refunds.md'),
    purpose: 'assistants',
  });
  const store = await server.client.vectorStores.create({ name: 'traced' });
  expect((await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id }, { pollIntervalMs: 20 })).status).toBe(
    'completed',
  );
  storeId = store.id;
});

afterAll(async () => {
  await worker?.close();
  if (workerDir) rmSync(workerDir, { recursive: true, force: true });
  await server?.close();
  await upstream?.close();
  // Tracing is per process: off again for the next test file this worker runs.
  await tracer.shutdown();
  await collector?.close();
});

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('exports the span tree of a Responses call with file_search and a function tool, with the GenAI attributes', async () => {
    upstream.push(
      {
        toolCalls: [{ id: 'call_fs', name: 'file_search', arguments: { query: 'refund boat tour' } }],
        usage: { prompt_tokens: 21, completion_tokens: 5 },
      },
      {
        toolCalls: [{ id: 'call_fn', name: 'get_weather', arguments: { city: 'Kiel' } }],
        usage: { prompt_tokens: 48, completion_tokens: 7 },
      },
    );
    const { data: response, request_id } = await server.client.responses
      .create(
        {
          model: 'fake/gpt-test',
          input: 'Refund policy, and the weather in Kiel?',
          tools: [
            { type: 'file_search', vector_store_ids: [storeId] },
            {
              type: 'function',
              name: 'get_weather',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
              strict: false,
            },
          ],
        },
        { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } },
      )
      .withResponse();
    expect(response.output.map((item) => item.type)).toEqual(['file_search_call', 'function_call']);
    // The request id is the caller's trace id: one lookup finds the logs and the trace.
    expect(request_id).toBe(`req_${TRACE_ID}`);

    const spans = (await waitForSpan(collector, (span) => span.name === 'POST /v1/responses' && span.traceId === TRACE_ID)).filter(
      (span) => span.traceId === TRACE_ID,
    );
    const root = spans.find((span) => span.name === 'POST /v1/responses')!;
    expect(root).toMatchObject({ parentSpanId: CALLER_SPAN, kind: 2, service: 'fathom-under-test' });
    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/responses',
      'http.response.status_code': 200,
      'fathom.request_id': `req_${TRACE_ID}`,
    });

    const models = spans.filter((span) => span.name === 'chat fake/gpt-test');
    expect(models).toHaveLength(2);
    for (const model of models) expect(model).toMatchObject({ parentSpanId: root.spanId, kind: 3 });
    expect(models.map((model) => model.attributes)).toEqual([
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'fake',
        'gen_ai.request.model': 'fake/gpt-test',
        'gen_ai.response.model': 'fake/gpt-test',
        'gen_ai.usage.input_tokens': 21,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      },
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'fake',
        'gen_ai.request.model': 'fake/gpt-test',
        'gen_ai.response.model': 'fake/gpt-test',
        'gen_ai.usage.input_tokens': 48,
        'gen_ai.usage.output_tokens': 7,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      },
    ]);
    const tool = spans.find((span) => span.name === 'execute_tool file_search')!;
    expect(tool).toMatchObject({ parentSpanId: root.spanId });
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'file_search' });
    const search = spans.find((span) => span.name === 'vector_store.search')!;
    expect(search).toMatchObject({ parentSpanId: tool.spanId });
    expect(search.attributes).toMatchObject({ 'fathom.search.mode': 'hybrid' });

    // The upstream got each call's own span as its parent (traceparent sent on outbound model calls).
    const sent = upstream.server.requests.slice(-2).map((request) => request.headers.traceparent);
    expect(sent).toEqual(models.map((model) => `00-${TRACE_ID}-${model.spanId}-01`));
    // Content capture is off: no prompt or answer on any span.
    expect(JSON.stringify(spans)).not.toContain('Refund policy');
  });

  it('continues the trace of the request into the background run, on the node that claims it', async () => {
    if (server.databaseUrl) {
      // The node that claims background work: a second Fathom on the same PostgreSQL database.
      workerDir = mkdtempSync(join(tmpdir(), 'fathom-worker-'));
      worker = await Fathom.open({
        env: { ...env, FATHOM_EMBEDDER: 'hash', FATHOM_DATABASE_URL: server.databaseUrl, FATHOM_DATA_DIR: workerDir },
        logger: silentLogger,
      });
    }
    upstream.push({ content: 'Background answer.', usage: { prompt_tokens: 9, completion_tokens: 2 } });
    const created = await server.client.responses.create({ model: 'fake/gpt-test', input: 'work on this later', background: true });
    let status = created.status;
    const deadline = Date.now() + 15_000;
    while (status === 'queued' || status === 'in_progress') {
      if (Date.now() > deadline) throw new Error(`background response still ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      status = (await server.client.responses.retrieve(created.id)).status;
    }
    expect(status).toBe('completed');

    const spans = await waitForSpan(
      collector,
      (span) => span.name === 'response.background' && span.attributes['fathom.response_id'] === created.id,
    );
    const run = spans.find((span) => span.name === 'response.background' && span.attributes['fathom.response_id'] === created.id)!;
    const post = spans.find((span) => span.spanId === run.parentSpanId)!;
    expect(post).toMatchObject({ name: 'POST /v1/responses', traceId: run.traceId, kind: 2 });
    const model = spans.find((span) => span.parentSpanId === run.spanId && span.name === 'chat fake/gpt-test')!;
    expect(model.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 9, 'gen_ai.usage.output_tokens': 2 });
    // The stored response names the request that created it.
    const row = await server.fathom.database.get<{ request_id: string }>('SELECT request_id FROM responses WHERE id = ?', [created.id]);
    expect(row?.request_id).toBe(post.attributes['fathom.request_id']);
  });
});
