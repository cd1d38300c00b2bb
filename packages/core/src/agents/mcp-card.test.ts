import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../egress';
import { silentLogger } from '../internal/logger';
import { connectMcpServer } from '../mcp';
import type { ChatAdapterContract, ChatRequest, ChatResult } from '../models/types';
import { startEdgeMcpServer, startEverythingServer, type TestMcpServer } from '../test';
import type { AgentWebhooks } from './agent-deps';
import type { AgentRunEvent, NewAgentRunStep } from './agent-objects';
import { runWorkflow } from './agent-runner';
import { McpCardClient } from './mcp-card-client';
import { publishedAgentTools } from './published-tools';
import type { Workflow } from './workflow-types';

const TOKEN = 'sk-mcp-card-7d1e';

type Turn = { content?: string; calls?: Array<{ name: string; args: Record<string, unknown> }> };

/** A scripted model: each call takes the next turn; the requests (tools offered, messages) are kept. */
function scriptedChat(turns: Turn[]): ChatAdapterContract & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async complete(request): Promise<ChatResult> {
      requests.push(structuredClone(request));
      const turn = turns.shift() ?? { content: 'done' };
      const calls = (turn.calls ?? []).map((call, index) => ({
        id: `call_${requests.length}_${index}`,
        type: 'function' as const,
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      }));
      return {
        id: 'x',
        model: request.model,
        message: { role: 'assistant', content: turn.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) },
        finishReason: calls.length ? 'tool_calls' : 'stop',
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
    },
    stream() {
      throw new Error('not streamed here');
    },
  };
}

const noWebhooks: AgentWebhooks = {
  compile: () => ({ tools: [], collisions: [] }),
  toolDefinition: () => {
    throw new Error('no webhook cards here');
  },
  execute: async () => 'unused',
};

function mcpWorkflow(config: Record<string, unknown>): Workflow {
  return {
    nodes: [
      { id: 'start', type: 'start', data: {} },
      { id: 'agent', type: 'agent', data: { name: 'Helper', model: 'fake/model', system_prompt: 'Help.' } },
      { id: 'docs', type: 'mcp', data: { name: 'Docs server', config: { auth: { type: 'bearer', token: TOKEN }, ...config } } },
      { id: 'end', type: 'end', data: {} },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'agent' },
      { id: 'e2', source: 'agent', target: 'end' },
      { id: 'e3', source: 'docs', target: 'agent', targetHandle: 'slot-0' },
    ],
  } as Workflow;
}

async function run(workflow: Workflow, chat: ChatAdapterContract, mcp: McpCardClient) {
  const events: AgentRunEvent[] = [];
  const steps: NewAgentRunStep[] = [];
  for await (const event of runWorkflow({
    agentId: 'agent_1',
    runId: 'run_1',
    accountId: 'acct_1',
    version: 1,
    workflow,
    message: 'Go',
    variables: {},
    stream: false,
    signal: new AbortController().signal,
    chat,
    webhooks: noWebhooks,
    mcp,
    builtIns: [],
    maxToolRounds: 5,
    log: silentLogger,
    record: (step) => void steps.push(step),
  })) {
    events.push(event);
  }
  return { events, steps };
}

const toolNames = (request: ChatRequest | undefined) => (request?.tools ?? []).map((tool) => tool.function.name);

describe('agents: the MCP card against real MCP servers on 127.0.0.1', () => {
  let edge: TestMcpServer & { cancelled: string[] };
  const allowed = new EgressGuard({ allow: ['127.0.0.1'] });
  let connects = 0;
  const client = new McpCardClient({
    fetch: allowed.fetch,
    connect: (target, options) => {
      connects++;
      return connectMcpServer(target, options);
    },
  });

  beforeAll(async () => {
    edge = await startEdgeMcpServer();
  });
  afterAll(async () => {
    await client.close();
    await allowed.close();
    await edge.close();
  });

  it("runs a tool of the card's server: the model sees allowedTools only, tool_use holds the model's arguments, the token reaches the server and no event", async () => {
    const chat = scriptedChat([{ calls: [{ name: 'echo', args: { text: 'hello from the model' } }] }, { content: 'It said hello.' }]);
    const { events, steps } = await run(mcpWorkflow({ serverUrl: edge.url, allowedTools: ['echo', 'fail', 'slow'] }), chat, client);
    expect(toolNames(chat.requests[0])).toEqual(['echo', 'slow', 'fail']);
    expect(chat.requests[0]?.tools?.[0]?.function).toMatchObject({ description: 'Echoes its text.', parameters: { type: 'object' } });
    const use = events.find((event) => event.type === 'tool_use');
    expect(use).toMatchObject({ tool: 'echo', input: { text: 'hello from the model' } });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ tool: 'echo', output: 'hello from the model' });
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', output: 'It said hello.' });
    expect(edge.requests.some((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(JSON.stringify([events, steps, chat.requests])).not.toContain(TOKEN);
  });

  it('gives a failing or too slow tool back as error text and the agent goes on', async () => {
    const chat = scriptedChat([
      { calls: [{ name: 'fail', args: {} }] },
      { calls: [{ name: 'slow', args: { ms: 5_000 } }] },
      { content: 'Both tools failed; here is what I know.' },
    ]);
    const { events } = await run(mcpWorkflow({ serverUrl: edge.url, timeout: 400 }), chat, client);
    const results = events.filter((event) => event.type === 'tool_result').map((event) => (event as { output: string }).output);
    expect(results[0]).toBe('Error: the database is down');
    expect(results[1]).toMatch(/^Error: .*(timed out|did not answer)/);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', output: 'Both tools failed; here is what I know.' });
    // The model saw both errors as tool messages.
    expect(JSON.stringify(chat.requests[2]?.messages)).toContain('the database is down');
  });

  it('keeps a tool list for the TTL on one connection, and lists again when the server says its tools changed', async () => {
    const workflow = mcpWorkflow({ serverUrl: edge.url });
    const before = connects;
    const first = scriptedChat([{ content: 'ok' }]);
    await run(workflow, first, client);
    const second = scriptedChat([{ calls: [{ name: 'add_tool', args: {} }] }, { content: 'added' }]);
    await run(workflow, second, client);
    expect(toolNames(second.requests[0])).toEqual(toolNames(first.requests[0]));
    // `add_tool` made the server send notifications/tools/list_changed: the next run sees the new tool.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = scriptedChat([{ content: 'ok' }]);
    await run(workflow, third, client);
    const added = toolNames(third.requests[0]).filter((name) => !toolNames(first.requests[0]).includes(name));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^added_\d+$/);
    expect(connects - before).toBeLessThanOrEqual(1);
  });

  it('runs the agent without the tools of a server that cannot be reached, and says so in the run events and steps', async () => {
    const chat = scriptedChat([{ content: 'I answer without tools.' }]);
    const { events, steps } = await run(mcpWorkflow({ serverUrl: 'http://127.0.0.1:9/mcp' }), chat, client);
    const notice = events.find((event) => event.type === 'tools_unavailable');
    expect(notice).toMatchObject({ node_id: 'agent', card_id: 'docs' });
    expect((notice as { error: string }).error).toMatch(/MCP card 'Docs server' \(node 'docs'\): its tools are not available/);
    expect(steps.find((step) => step.type === 'tools_unavailable')).toMatchObject({ card_id: 'docs' });
    expect(chat.requests[0]?.tools).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', output: 'I answer without tools.' });
  });

  it('refuses a loopback server without AGENT_EGRESS_ALLOW: destination not allowed, the agent runs on', async () => {
    const guard = new EgressGuard({});
    const strict = new McpCardClient({ fetch: guard.fetch });
    try {
      const requestsBefore = edge.requests.length;
      const chat = scriptedChat([{ content: 'no tools' }]);
      const { events } = await run(mcpWorkflow({ serverUrl: edge.url }), chat, strict);
      const notice = events.find((event) => event.type === 'tools_unavailable') as { error: string } | undefined;
      expect(notice?.error).toMatch(/destination not allowed/i);
      expect(edge.requests.length).toBe(requestsBefore);
      expect(events.at(-1)).toMatchObject({ type: 'run.completed' });
    } finally {
      await strict.close();
      await guard.close();
    }
  });

  it("uses an operator's server (FATHOM_MCP_SERVERS) named by label, with the operator's headers", async () => {
    const operator = new McpCardClient({
      fetch: allowed.fetch,
      servers: { docs: { url: edge.url, headers: { 'X-Operator': 'op-secret' } } },
    });
    try {
      const chat = scriptedChat([{ calls: [{ name: 'echo', args: { text: 'via label' } }] }, { content: 'ok' }]);
      const { events } = await run(mcpWorkflow({ serverUrl: 'docs', allowedTools: ['echo'] }), chat, operator);
      expect(events.find((event) => event.type === 'tools_unavailable')).toBeUndefined();
      expect(toolNames(chat.requests[0])).toEqual(['echo']);
      expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ output: 'via label' });
      expect(edge.requests.some((headers) => headers['x-operator'] === 'op-secret')).toBe(true);
      expect(JSON.stringify(events)).not.toContain('op-secret');
    } finally {
      await operator.close();
    }
  });

  it("serves the card's tools on a published agent's own MCP endpoint, calling the server with the stored card", async () => {
    const published = await publishedAgentTools({
      agent: { id: 'agent_1', account_id: 'acct_1', name: 'Helper', version: 1 },
      workflow: mcpWorkflow({ serverUrl: edge.url, allowedTools: ['echo'] }),
      webhooks: noWebhooks,
      mcp: client,
      log: silentLogger,
    });
    expect([...published.tools.keys()]).toEqual(['echo']);
    expect(published.tools.get('echo')!.source).toBe('docs');
    expect(await published.tools.get('echo')!.run({ text: 'from an MCP client' }, new AbortController().signal)).toBe('from an MCP client');
  });

  it('uses the tools of @modelcontextprotocol/server-everything over Streamable HTTP', async () => {
    const everything = await startEverythingServer('streamableHttp');
    try {
      const chat = scriptedChat([{ calls: [{ name: 'echo', args: { message: 'ping' } }] }, { content: 'pong' }]);
      const { events } = await run(mcpWorkflow({ serverUrl: everything.url }), chat, client);
      expect(toolNames(chat.requests[0])).toContain('echo');
      const result = events.find((event) => event.type === 'tool_result') as { output: string } | undefined;
      expect(result?.output).toContain('ping');
      expect(events.at(-1)).toMatchObject({ type: 'run.completed', output: 'pong' });
    } finally {
      await everything.close();
    }
  }, 60_000);
});
