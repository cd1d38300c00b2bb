import type { AgentRun } from '@fathom/core';
import { createFakeOpenAIUpstream, createTestServer, respond, type FakeUpstream, type TestServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow, parseSse } from './agents-workflows';
import { type AgentEnvelope, json, type RunEnvelope, startFathom, type TestFathom } from './harness';

const SECRET = 'sk-orders-secret-4f9a';

/**
 * A full agent run: real ChatAdapter -> scripted OpenAI-wire fake model on 127.0.0.1, real
 * WebhookToolkit -> a local orders API on 127.0.0.1 (allowed through AGENT_EGRESS_ALLOW).
 */
describe('agent runs with a Webhook card', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let api: TestServer;
  let agentId: string;

  beforeAll(async () => {
    api = await createTestServer({
      'GET /api/orders/A-100': (request, response) => {
        if (request.headers.authorization !== `Bearer ${SECRET}`) return respond.json(response, 401, { error: 'bad token' });
        respond.json(response, 200, { id: 'A-100', status: 'shipped', carrier: 'DHL' });
      },
      'GET /api/orders/B-500': (_request, response) => respond.text(response, 500, 'database is down'),
    });
    // The model: asks for the order named in the user message, then answers from the tool result.
    upstream = await createFakeOpenAIUpstream((request) => {
      const user = request.messages.find((message: any) => message.role === 'user').content as string;
      const last = request.messages.at(-1);
      if (user.includes('hang')) return { content: 'This answer never ends', hang: true };
      if (user.includes('model-error')) return { error: { status: 400, message: 'the model refused this request' } };
      if (user.includes('loop'))
        return { toolCalls: [{ id: `call_${request.messages.length}`, name: 'get_order', arguments: { order_id: 'A-100' } }] };
      if (last.role === 'tool') return { content: `Result for you: ${last.content.slice(0, 60)}` };
      const orderId = /[AB]-\d+/.exec(user)?.[0] ?? 'A-100';
      return { toolCalls: [{ id: 'call_order_1', name: 'get_order', arguments: { order_id: orderId } }] };
    });
    server = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        AGENT_EGRESS_ALLOW: '127.0.0.1',
      },
    });
    const created = await server.request('/v1/agents', {
      method: 'POST',
      json: { name: 'Orders helper', workflow: ordersWorkflow({ baseUrl: `${api.url}/api/`, token: SECRET }) },
    });
    agentId = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await upstream.close();
    await api.close();
  });

  const run = (body: unknown) => server.request(`/v1/agents/${agentId}/run`, { method: 'POST', json: body });

  it('streams run.started, tool_use, tool_result, message.delta and run.completed, with no card secret anywhere', async () => {
    const requestsBefore = api.requests.length;
    const response = await run({ message: 'Where is order A-100?', variables: { customer_name: 'Ana' }, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const events = parseSse(text);
    expect(events[0]).toMatchObject({
      event: 'run.started',
      data: { run: { id: expect.stringMatching(/^agentrun_/), status: 'in_progress', version: 1 } },
    });
    const names = events.map((event) => event.event);
    expect(names.slice(1, 3)).toEqual(['tool_use', 'tool_result']);
    expect(names.at(-1)).toBe('run.completed');
    expect(names.filter((name) => name === 'message.delta').length).toBeGreaterThan(1);

    const toolUse = events[1]!.data;
    expect(toolUse).toMatchObject({ id: 'call_order_1', tool: 'get_order', input: { order_id: 'A-100' } });
    expect(Object.keys(toolUse.input)).toEqual(['order_id']);
    const toolResult = events[2]!.data;
    expect(toolResult).toMatchObject({ id: 'call_order_1', tool: 'get_order' });
    expect(JSON.parse(toolResult.output)).toEqual({ id: 'A-100', status: 'shipped', carrier: 'DHL' });

    const deltas = events
      .filter((event) => event.event === 'message.delta')
      .map((event) => event.data.content)
      .join('');
    expect(events.at(-1)!.data.output).toBe(deltas);
    expect(deltas).toMatch(/^Result for you: \{/);

    // The API got the call with the card's credentials and headers, injected at call time.
    expect(api.requests.length).toBe(requestsBefore + 1);
    const call = api.requests.at(-1)!;
    expect(call).toMatchObject({ method: 'GET', path: '/api/orders/A-100' });
    expect(call.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(call.headers['x-client']).toBe('fathom-agent');

    // Neither the stream, nor what the model saw, nor the stored run holds the secret or the card config.
    for (const haystack of [text, JSON.stringify(upstream.requests)]) {
      expect(haystack).not.toContain(SECRET);
      expect(haystack).not.toContain('fathom-agent');
      expect(haystack).not.toContain(api.url);
    }
    const runId = events[0]!.data.run.id;
    const stored = await json<RunEnvelope>(await server.request(`/v1/agents/${agentId}/runs/${runId}`));
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(stored.run).toMatchObject({ status: 'completed', output: deltas });
    expect(stored.run.steps.map((step) => step.type)).toEqual(['tool_call', 'message']);
    expect(stored.run.steps[0]).toMatchObject({ tool: 'get_order', call_id: 'call_order_1', input: { order_id: 'A-100' } });

    // The model was offered the route as a tool (plus the built-in summarize), with the spec's description.
    const firstTurn = upstream.requests.find((request) => request.messages.at(-1).content === 'Where is order A-100?');
    const tools = firstTurn.tools.map((tool: any) => tool.function.name).sort();
    expect(tools).toEqual(['cancel_order', 'get_order', 'summarize']);
    const getOrder = firstTurn.tools.find((tool: any) => tool.function.name === 'get_order').function;
    expect(getOrder.description).toContain('WHEN TO USE:');
    expect(getOrder.parameters.required).toEqual(['order_id']);
    expect(firstTurn.messages[0]).toEqual({ role: 'system', content: 'You help Ana with orders.' });
  });

  it('hands an HTTP 500 back to the model as text and still completes the run', async () => {
    const response = await run({ message: 'Status of B-500 please', variables: { customer_name: 'Bo' }, stream: true });
    const events = parseSse(await response.text());
    const toolResult = events.find((event) => event.event === 'tool_result')!.data;
    expect(toolResult.output).toBe('Error: HTTP 500 - database is down');
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', data: { output: 'Result for you: Error: HTTP 500 - database is down' } });
    const lastTurn = upstream.requests.at(-1);
    expect(lastTurn.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Error: HTTP 500 - database is down' });
  });

  it('answers {run: {id, status, output, steps}} without stream', async () => {
    const response = await run({ message: 'Where is A-100?', variables: { customer_name: 'Cy' } });
    expect(response.status).toBe(200);
    const { run: body } = await json<RunEnvelope>(response);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^agentrun_/),
      status: 'completed',
      output: expect.stringMatching(/^Result for you/),
    });
    expect(body.steps).toEqual([
      expect.objectContaining({
        type: 'tool_call',
        tool: 'get_order',
        input: { order_id: 'A-100' },
        output: expect.stringContaining('"shipped"'),
      }),
      expect.objectContaining({ type: 'message', node_id: 'support' }),
    ]);
  });

  it('fails the run with the upstream message when the model errors', async () => {
    const events = parseSse(await (await run({ message: 'model-error now', variables: { customer_name: 'Di' }, stream: true })).text());
    expect(events.map((event) => event.event)).toEqual(['run.started', 'run.failed']);
    expect(events[1]!.data.error).toContain('the model refused this request');
    const stored = await json<RunEnvelope>(await server.request(`/v1/agents/${agentId}/runs/${events[0]!.data.run.id}`));
    expect(stored.run).toMatchObject({ status: 'failed', error: events[1]!.data.error });
  });

  it('stops a model that never stops calling tools after 10 rounds', async () => {
    const response = await run({ message: 'loop forever', variables: { customer_name: 'Ed' } });
    const { run: body } = await json<RunEnvelope>(response);
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/10 tool-calling rounds/);
    expect(body.steps.filter((step) => step.type === 'tool_call')).toHaveLength(10);
  });

  it('ends a run whose process died as failed once its lease runs out, without calling its tools again', async () => {
    const { run: body } = await json<RunEnvelope>(await run({ message: 'Where is A-100?', variables: { customer_name: 'Fa' } }));
    const apiCalls = api.requests.length;
    const modelCalls = upstream.requests.length;
    // As a killed process leaves it: in progress, leased to an owner that no longer renews.
    await server.fathom.database.run(
      "UPDATE agent_runs SET status = 'in_progress', output = NULL, completed_at = NULL, lease_owner = 'gone|1|dead', lease_until = ? WHERE id = ?",
      [Date.now() - 1, body.id],
    );
    const deadline = Date.now() + 10_000;
    let stored: AgentRun;
    do {
      stored = (await json<RunEnvelope>(await server.request(`/v1/agents/${agentId}/runs/${body.id}`))).run;
      if (stored.status !== 'in_progress') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (Date.now() < deadline);
    expect(stored).toMatchObject({ status: 'failed', error: expect.stringContaining('stopped before it finished') });
    expect(api.requests.length).toBe(apiCalls);
    expect(upstream.requests.length).toBe(modelCalls);
  });

  it('fails the run and aborts the model call when the client disconnects mid-stream', async () => {
    const controller = new AbortController();
    const modelCalls = upstream.requests.length;
    const response = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'hang please', variables: { customer_name: 'Gi' }, stream: true },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('\n\n')) received += new TextDecoder().decode((await reader.read()).value);
    const runId = parseSse(received.slice(0, received.indexOf('\n\n') + 2))[0]!.data.run.id;
    // Disconnect once the model call is under way (the fake model stalls after its first chunk).
    while (upstream.requests.length === modelCalls) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await upstream.waitForClose();
    const deadline = Date.now() + 10_000;
    let stored: AgentRun;
    do {
      stored = (await json<RunEnvelope>(await server.request(`/v1/agents/${agentId}/runs/${runId}`))).run;
      if (stored.status !== 'in_progress') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (Date.now() < deadline);
    expect(stored).toMatchObject({ status: 'failed', error: expect.stringContaining('cancelled') });
  });
});
