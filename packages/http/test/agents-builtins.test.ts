import { createFakeOpenAIUpstream, createTestServer, respond, type FakeUpstream, type TestServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow, parseSse } from './agents-workflows';
import { type AgentEnvelope, json, type RunEnvelope, startFathom, type TestFathom } from './harness';

/** start -> one agent per entry (in a pipeline) -> end; no Webhook cards. */
function pipeline(agents: Array<{ id: string; model: string; prompt?: string; filter?: string[] }>): any {
  const ids = ['start', ...agents.map((agent) => agent.id), 'end'];
  return {
    nodes: [
      { id: 'start', type: 'start', data: { label: 'Start' } },
      ...agents.map((agent) => ({
        id: agent.id,
        type: 'agent',
        data: {
          name: agent.id,
          model: agent.model,
          system_prompt: agent.prompt ?? `You are ${agent.id}.`,
          config: { tools_filter: agent.filter ?? [] },
        },
      })),
      { id: 'end', type: 'end', data: { label: 'End', status: 'success' } },
    ],
    edges: ids.slice(1).map((id, index) => ({ id: `e${index}`, source: ids[index], target: id })),
  };
}

describe('agent runs: built-in tools and pipelines', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let search: TestServer;

  beforeAll(async () => {
    search = await createTestServer({
      'GET /search': (request, response) => {
        if (request.headers.authorization !== 'Bearer search-key') return respond.json(response, 401, { error: 'no key' });
        respond.json(response, 200, { results: [{ title: `About ${request.query.get('q')}`, url: 'https://example.org/fathom' }] });
      },
    });
    upstream = await createFakeOpenAIUpstream((request) => {
      const system = request.messages[0]?.content ?? '';
      const user = request.messages.find((message: any) => message.role === 'user').content as string;
      const last = request.messages.at(-1);
      if (system.startsWith('Summarize')) return { content: `SUMMARY(${user.length} chars)` };
      if (last.role === 'tool') return { content: `Tool said: ${last.content}` };
      if (user.includes('search')) return { toolCalls: [{ id: 'call_s', name: 'web_search', arguments: { query: 'fathom docs' } }] };
      if (user.includes('order')) return { toolCalls: [{ id: 'call_o', name: 'get_order', arguments: { order_id: 'A-1' } }] };
      if (user.includes('summarize')) return { toolCalls: [{ id: 'call_m', name: 'summarize', arguments: { text: 'x'.repeat(120) } }] };
      return { content: `[${request.model}] ${user}` };
    });
    server = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        FATHOM_WEB_SEARCH_URL: `${search.url}/search`,
        FATHOM_WEB_SEARCH_KEY: 'search-key',
      },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await upstream.close();
    await search.close();
  });

  async function publish(workflow: unknown): Promise<string> {
    const { agent } = await json<AgentEnvelope>(
      await server.request('/v1/agents', { method: 'POST', json: { name: 'builtins', workflow } }),
    );
    await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    return agent.id;
  }

  it('feeds each agent the previous agent output along the pipeline', async () => {
    const id = await publish(
      pipeline([
        { id: 'drafter', model: 'fake/model-a' },
        { id: 'editor', model: 'fake/model-b' },
      ]),
    );
    const { run } = await json<RunEnvelope>(await server.request(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'hello' } }));
    expect(run).toMatchObject({ status: 'completed', output: '[model-b] [model-a] hello' });
    expect(run.steps.map((step: any) => [step.node_id, step.content])).toEqual([
      ['drafter', '[model-a] hello'],
      ['editor', '[model-b] [model-a] hello'],
    ]);
  });

  it('offers web_search when a search source is configured and calls it with its key', async () => {
    const id = await publish(pipeline([{ id: 'researcher', model: 'fake/model-a' }]));
    const events = parseSse(
      await (await server.request(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'please search', stream: true } })).text(),
    );
    expect(events.find((event) => event.event === 'tool_use')!.data).toMatchObject({ tool: 'web_search', input: { query: 'fathom docs' } });
    const output = events.find((event) => event.event === 'tool_result')!.data.output;
    expect(JSON.parse(output)).toEqual({ results: [{ title: 'About fathom docs', url: 'https://example.org/fathom' }] });
    expect(search.requests.at(-1)!.query.get('q')).toBe('fathom docs');
    const tools = upstream.requests
      .find((request) => request.messages.at(-1).content === 'please search')
      .tools.map((tool: any) => tool.function.name);
    expect(tools).toEqual(['summarize', 'web_search']);
  });

  it('summarizes with the same model through the built-in summarize tool', async () => {
    const id = await publish(pipeline([{ id: 'writer', model: 'fake/model-s' }]));
    const { run } = await json<RunEnvelope>(
      await server.request(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'summarize this' } }),
    );
    expect(run.steps[0]).toMatchObject({ type: 'tool_call', tool: 'summarize', output: 'SUMMARY(120 chars)' });
    expect(run.output).toBe('Tool said: SUMMARY(120 chars)');
    const summaryCall = upstream.requests.find((request) => request.messages[0]?.content?.startsWith('Summarize'));
    expect(summaryCall.model).toBe('model-s');
  });

  it('narrows the tools an agent sees with tools_filter', async () => {
    const id = await publish(pipeline([{ id: 'narrow', model: 'fake/model-a', filter: ['summarize'] }]));
    await server.request(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'filtered hello' } });
    const request = upstream.requests.find((item) => item.messages.at(-1).content === 'filtered hello');
    expect(request.tools.map((tool: any) => tool.function.name)).toEqual(['summarize']);
  });

  it('refuses a card pointing at a loopback API when AGENT_EGRESS_ALLOW does not list it, and the run goes on', async () => {
    const id = await publish(ordersWorkflow({ baseUrl: `${search.url}/api`, model: 'fake/model-a' }));
    const before = search.requests.length;
    const events = parseSse(
      await (
        await server.request(`/v1/agents/${id}/run`, {
          method: 'POST',
          json: { message: 'my order?', variables: { customer_name: 'Jo' }, stream: true },
        })
      ).text(),
    );
    expect(events.find((event) => event.event === 'tool_result')!.data.output).toBe('Error: destination not allowed');
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', data: { output: 'Tool said: Error: destination not allowed' } });
    expect(search.requests.length).toBe(before);
  });
});
