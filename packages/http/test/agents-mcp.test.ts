import { createFakeOpenAIUpstream, type FakeUpstream, startEdgeMcpServer, type TestMcpServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse } from './agents-workflows';
import { type AgentEnvelope, type ErrorBody, json, type RunEnvelope, startFathom, type TestFathom, type ToolsPreviewBody } from './harness';

const TOKEN = 'sk-mcp-http-91c3';
const HEADER_SECRET = 'hdr-secret-55aa';

function mcpWorkflow(serverUrl: string | undefined, extra: Record<string, unknown> = {}): any {
  return {
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'agent', type: 'agent', data: { name: 'Helper', model: 'fake/model', system_prompt: 'Help.' } },
      {
        id: 'docs',
        type: 'mcp',
        data: {
          name: 'Docs server',
          config: {
            ...(serverUrl === undefined ? {} : { serverUrl }),
            auth: { type: 'bearer', token: TOKEN },
            headers: { 'X-Api-Key': HEADER_SECRET, 'X-Client': 'fathom-card' },
            allowedTools: ['echo', 'fail'],
            ...extra,
          },
        },
      },
      { id: 'end', type: 'end', data: {} },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'agent' },
      { id: 'e2', source: 'agent', target: 'end' },
      { id: 'e3', source: 'docs', target: 'agent', targetHandle: 'slot-0' },
    ],
  };
}

/**
 * The MCP card through the HTTP API: a real MCP server built with the SDK on 127.0.0.1 (allowed through
 * AGENT_EGRESS_ALLOW), the real ChatAdapter against a scripted OpenAI-wire model on 127.0.0.1.
 */
describe('agents: the MCP card over HTTP', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let mcp: TestMcpServer;
  let agentId: string;

  beforeAll(async () => {
    mcp = await startEdgeMcpServer();
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { content: `The server said: ${last.content}` };
      if (!(request.tools ?? []).some((tool: any) => tool.function.name === 'echo')) return { content: 'No tools today.' };
      return { toolCalls: [{ id: 'call_echo_1', name: 'echo', arguments: { text: 'hello over MCP' } }] };
    });
    server = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        AGENT_EGRESS_ALLOW: '127.0.0.1',
      },
    });
    const created = await server.request('/v1/agents', { method: 'POST', json: { name: 'MCP helper', workflow: mcpWorkflow(mcp.url) } });
    expect(created.status).toBe(200);
    agentId = (await json<AgentEnvelope>(created)).agent.id;
    expect((await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' })).status).toBe(200);
  });
  afterAll(async () => {
    await server?.close({ keepData: false });
    await upstream?.close();
    await mcp?.close();
  });

  /** The tools an agent node gets from the MCP card (built-ins such as `summarize` left out). */
  const cardTools = (agent: ToolsPreviewBody['agents'][number] | undefined) =>
    (agent?.tools ?? []).map((tool) => tool.function.name).filter((name) => agent?.sources[name] === 'docs');

  const preview = async (body: unknown) => {
    const response = await server.request('/v1/agents/tools', { method: 'POST', json: body });
    expect(response.status).toBe(200);
    return json<ToolsPreviewBody>(response);
  };

  it('masks the card secrets in answers, and lists the tools with the saved ones when the masked draft is previewed', async () => {
    const { agent } = await json<AgentEnvelope>(await server.request(`/v1/agents/${agentId}`));
    const card = agent.workflow.nodes.find((node) => node.id === 'docs') as any;
    expect(card.data.config.auth).toEqual({ type: 'bearer', token: '********' });
    expect(card.data.config.headers).toEqual({ 'X-Api-Key': '********', 'X-Client': 'fathom-card' });
    expect(JSON.stringify(agent)).not.toContain(TOKEN);

    const before = mcp.requests.length;
    const listed = await preview({ workflow: agent.workflow, agent_id: agentId });
    expect(listed.validation_error).toBeNull();
    const [helper] = listed.agents;
    expect(cardTools(helper)).toEqual(['echo', 'fail']);
    expect(helper!.tools.find((tool) => tool.function.name === 'echo')!.function.description).toBe('Echoes its text.');
    expect(helper!.sources).toMatchObject({ echo: 'docs', fail: 'docs' });
    expect(helper!.cards).toEqual(['docs']);
    // The server got the saved credentials, never the mask.
    const sent = mcp.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((headers) => headers.authorization === `Bearer ${TOKEN}` && headers['x-api-key'] === HEADER_SECRET)).toBe(true);

    // Without agent_id a masked secret is not sent anywhere: the card says why it lists nothing.
    const masked = await preview({ workflow: agent.workflow });
    expect(cardTools(masked.agents[0])).toEqual([]);
    expect(masked.agents[0]!.warnings.join('\n')).toMatch(/MCP card 'Docs server' \(node 'docs'\).*secret of the card is masked/);
    // mcp_tools: false answers without contacting the server.
    const quiet = mcp.requests.length;
    const off = await preview({ workflow: mcpWorkflow(mcp.url), mcp_tools: false });
    expect(cardTools(off.agents[0])).toEqual([]);
    expect(off.agents[0]!.warnings.join('\n')).toContain('mcp_tools: false');
    expect(mcp.requests.length).toBe(quiet);
  });

  it("runs the agent with the card's tool: tool_use and tool_result events, no secret in the stream, the model's requests or the stored run", async () => {
    const response = await server.request(`/v1/agents/${agentId}/run`, { method: 'POST', json: { message: 'Say hello', stream: true } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = parseSse(text);
    expect(events.map((event) => event.event).filter((name) => name !== 'message.delta')).toEqual([
      'run.started',
      'tool_use',
      'tool_result',
      'run.completed',
    ]);
    expect(events[1]!.data).toEqual({ id: 'call_echo_1', tool: 'echo', input: { text: 'hello over MCP' }, node_id: 'agent' });
    expect(events[2]!.data).toMatchObject({ tool: 'echo', output: 'hello over MCP' });
    expect(events.at(-1)!.data.output).toBe('The server said: hello over MCP');
    const runId = events[0]!.data.run.id;
    const stored = await json<RunEnvelope>(await server.request(`/v1/agents/${agentId}/runs/${runId}`));
    expect(stored.run.steps.map((step) => step.type)).toEqual(['tool_call', 'message']);
    for (const haystack of [text, JSON.stringify(stored), JSON.stringify(upstream.requests)]) {
      expect(haystack).not.toContain(TOKEN);
      expect(haystack).not.toContain(HEADER_SECRET);
      expect(haystack).not.toContain(mcp.url);
    }
  });

  it('refuses a metadata address (egress guard) and runs the agent without the tools, saying so in the events and the stored run', async () => {
    const blocked = mcpWorkflow('http://169.254.169.254/mcp');
    const listed = await preview({ workflow: blocked });
    expect(cardTools(listed.agents[0])).toEqual([]);
    expect(listed.agents[0]!.warnings.join('\n')).toMatch(/destination not allowed/i);

    const created = await server.request('/v1/agents', { method: 'POST', json: { name: 'Blocked', workflow: blocked } });
    const id = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${id}/publish`, { method: 'POST' });
    const response = await server.request(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'Hi', stream: true } });
    const events = parseSse(await response.text());
    const notice = events.find((event) => event.event === 'tools_unavailable');
    expect(notice?.data).toMatchObject({ node_id: 'agent', card_id: 'docs' });
    expect(notice?.data.error).toMatch(/destination not allowed/i);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', data: { output: 'No tools today.' } });
    const stored = await json<RunEnvelope>(await server.request(`/v1/agents/${id}/runs/${events[0]!.data.run.id}`));
    expect(stored.run.steps[0]).toMatchObject({ type: 'tools_unavailable', node_id: 'agent', card_id: 'docs' });
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
  });

  it('refuses an MCP card without a serverUrl with 400 mcp_no_server naming the field', async () => {
    const response = await server.request('/v1/agents', { method: 'POST', json: { name: 'No server', workflow: mcpWorkflow(undefined) } });
    expect(response.status).toBe(400);
    const body = await json<ErrorBody>(response);
    expect(body.error).toMatchObject({ code: 'mcp_no_server', param: 'workflow.nodes[2].data.config.serverUrl' });
  });
});
