import { createFakeOpenAIUpstream, createTestServer, type FakeUpstream, respond, type TestServer } from '@fathom/core/test';
import { type OpenAI, toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow, parseSse } from './agents-workflows';
import { type AgentEnvelope, json, startFathom, type TestFathom } from './harness';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

const handbook = 'Refunds for cancelled boat tours are paid within five working days to the original card.';

/**
 * Some providers stream a tool call's function name in several pieces (OpenAI sends it whole). Every
 * loop joins them through one assembler and one tool loop (`turns/`): the call runs under its full name in
 * assistants, Responses and agents alike (the agents loop once kept only the first piece and called a tool
 * `get_` that did not exist), whether the client runs it (a function) or the loop does (file_search, a route).
 */
describe('a tool name streamed in pieces', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let api: TestServer;
  let storeId: string;

  beforeAll(async () => {
    api = await createTestServer({
      'GET /api/orders/A-100': (_request, response) => respond.json(response, 200, { id: 'A-100', status: 'shipped' }),
    });
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { content: `Done: ${String(last.content).slice(0, 40)}` };
      const user = String(request.messages.find((message: { role: string }) => message.role === 'user')?.content ?? '');
      if (user.includes('refund'))
        return { splitToolNames: true, toolCalls: [{ name: 'file_search', arguments: { query: 'refund boat tour' } }] };
      if (user.includes('order')) return { splitToolNames: true, toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-100' } }] };
      return { splitToolNames: true, toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] };
    });
    server = await startFathom({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }), AGENT_EGRESS_ALLOW: '127.0.0.1' },
    });
    const file = await server.client.files.create({ file: await toFile(Buffer.from(handbook), 'handbook.md'), purpose: 'assistants' });
    const store = await server.client.vectorStores.create({ name: 'harbour' });
    expect((await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id })).status).toBe('completed');
    storeId = store.id;
  });
  afterAll(async () => {
    await server?.close({ keepData: false });
    await upstream?.close();
    await api?.close();
  });

  it('Responses (streamed): the function_call item carries the whole name', async () => {
    const stream = await server.client.responses.create({
      model: 'fake/fake-model',
      input: 'Weather in Lisbon?',
      tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters, strict: false }],
      stream: true,
    });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    expect(upstream.requests.at(-1).stream).toBe(true);
    expect(completed!.output.filter((item) => item.type === 'function_call')).toMatchObject([
      { name: 'get_weather', arguments: '{"city":"Lisbon"}' },
    ]);
  });

  it('Assistants (streamed run): requires_action names the whole function', async () => {
    const { client } = server;
    const assistant = await client.beta.assistants.create({ model: 'fake/fake-model', tools: [weatherTool] });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather?' }] });
    const run = await client.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id }).finalRun();
    expect(upstream.requests.at(-1).stream).toBe(true);
    expect(run.status).toBe('requires_action');
    expect(run.required_action!.submit_tool_outputs.tool_calls[0]!.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Lisbon"}',
    });
  });

  it('agents (streamed run): the Webhook route runs under its whole name', async () => {
    const created = await server.request('/v1/agents', {
      method: 'POST',
      json: { name: 'Orders', workflow: ordersWorkflow({ baseUrl: `${api.url}/api/`, token: 'sk-t' }) },
    });
    const agentId = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' });
    const calledBefore = api.requests.length;
    const response = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'Where is my order?', variables: { customer_name: 'Ana' }, stream: true },
    });
    const events = parseSse(await response.text());
    expect(events.find((event) => event.event === 'tool_use')?.data).toMatchObject({ tool: 'get_order', input: { order_id: 'A-100' } });
    expect(events.at(-1)?.event).toBe('run.completed');
    expect(api.requests.slice(calledBefore).map((request) => request.url)).toEqual(['/api/orders/A-100']);
  });

  it('Responses (streamed): the hosted file_search called in pieces runs, and the answer follows its passages', async () => {
    const stream = await server.client.responses.create({
      model: 'fake/fake-model',
      input: 'How long does a refund take?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      stream: true,
    });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    expect(completed!.output.map((item) => item.type)).toEqual(['file_search_call', 'message']);
    expect(completed!.output[0]).toMatchObject({ status: 'completed', queries: ['refund boat tour'] });
    expect(upstream.requests.at(-1).messages.at(-1).content).toContain('five working days');
  });

  it('Assistants (streamed run): file_search called in pieces runs in the run, which completes', async () => {
    const { client } = server;
    const assistant = await client.beta.assistants.create({
      model: 'fake/fake-model',
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: [storeId] } },
    });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'How long does a refund take?' }] });
    const run = await client.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id }).finalRun();
    expect(run.status).toBe('completed');
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: thread.id });
    const toolStep = steps.data.find((step) => step.step_details.type === 'tool_calls');
    expect(toolStep?.step_details).toMatchObject({ tool_calls: [{ type: 'file_search' }] });
    expect(upstream.requests.at(-1).messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(upstream.requests.at(-1).messages.at(-1).content).toContain('five working days');
  });
});
