import { createFakeOpenAIUpstream, createTestServer, type FakeUpstream, respond, type TestServer } from '@fathom/core/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow } from './agents-workflows';
import {
  type AccountBody,
  type AgentEnvelope,
  type ErrorBody,
  type JobEnvelope,
  json,
  type LedgerBody,
  startFathom,
  type TestFathom,
} from './harness';
import { createFakeOsm } from './tools-fakes';

/**
 * Fathom as an MCP server, through the official SDK's `Client` over Streamable HTTP against a real
 * server on 127.0.0.1: tools (document search, a data tool with progress, a published agent),
 * resources, sessions, and one account never seeing another's data.
 */
let server: TestFathom;
let osm: TestServer;
let ordersApi: TestServer;
let upstream: FakeUpstream;
let storeId: string;
let fileId: string;
let agentId: string;
let ordersAgentId: string;

const SECRET = 'sk-orders-secret-mcp-7d1e';

const HANDBOOK = [
  '# Harbour handbook',
  '',
  'Refunds for cancelled boat tours are paid within five working days to the original card.',
  '',
  'The lighthouse is open to visitors on Saturdays from 10:00 to 16:00.',
].join('\n');

/** A connected SDK client with this key (default: the server's) on `path`. */
async function connect(path = '/mcp', apiKey = server.apiKey): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new Client({ name: 'fathom-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

beforeAll(async () => {
  osm = await createFakeOsm({ delayMs: 400 });
  ordersApi = await createTestServer({
    'GET /api/orders/A-100': (request, response) => {
      if (request.headers.authorization !== `Bearer ${SECRET}`) return respond.json(response, 401, { error: 'bad token' });
      respond.json(response, 200, { id: 'A-100', status: 'shipped' });
    },
  });
  upstream = await createFakeOpenAIUpstream((request) => {
    const user = request.messages.find((message: { role: string }) => message.role === 'user').content as string;
    if (user.includes('hang')) return { content: 'This answer never ends', hang: true };
    return { content: `You said: ${user}` };
  });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_TOOLS_NOMINATIM_URL: osm.url,
      FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
      FATHOM_TOOLS_SWEEP_MS: '50',
      AGENT_EGRESS_ALLOW: '127.0.0.1',
    },
  });
  const file = await server.client.files.create({ file: await toFile(Buffer.from(HANDBOOK), 'handbook.md'), purpose: 'assistants' });
  const store = await server.client.vectorStores.create({ name: 'harbour' });
  expect((await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id })).status).toBe('completed');
  storeId = store.id;
  fileId = file.id;
  const created = await server.request('/v1/agents', {
    method: 'POST',
    json: { name: 'Harbour Desk', workflow: ordersWorkflow({ variables: [{ name: 'customer_name', required: true }] }) },
  });
  agentId = (await json<AgentEnvelope>(created)).agent.id;
  expect((await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST' })).status).toBe(200);
  const orders = await server.request('/v1/agents', {
    method: 'POST',
    json: { name: 'Orders', workflow: ordersWorkflow({ baseUrl: `${ordersApi.url}/api/`, token: SECRET }) },
  });
  ordersAgentId = (await json<AgentEnvelope>(orders)).agent.id;
  expect((await server.request(`/v1/agents/${ordersAgentId}/publish`, { method: 'POST' })).status).toBe(200);
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await osm?.close();
  await ordersApi?.close();
  await upstream?.close();
});

describe('/mcp through the official SDK client', () => {
  it('lists the document tools, the data tools the installation runs and the published agents', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names.slice(0, 2)).toEqual(['file_search', 'list_vector_stores']);
    expect(names).toContain('maps');
    expect(names).toContain('agent_harbour_desk');
    const maps = tools.find((tool) => tool.name === 'maps')!;
    expect(maps.inputSchema.required).toEqual(['query', 'location']);
    const agent = tools.find((tool) => tool.name === 'agent_harbour_desk')!;
    expect(agent.inputSchema).toMatchObject({ required: ['message', 'customer_name'] });
    expect(client.getServerVersion()).toMatchObject({ name: 'fathom' });
    await client.close();
  });

  it('answers file_search with passages, file names and scores', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'file_search', arguments: { query: 'refund boat tour', vector_store_ids: [storeId] } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('handbook.md');
    expect(text(result)).toContain('five working days');
    const { results } = result.structuredContent as { results: Array<{ filename: string; score: number; file_id: string }> };
    expect(results[0]).toMatchObject({ filename: 'handbook.md', file_id: fileId });
    expect(results[0]!.score).toBeGreaterThan(0);
    expect(results[0]!.score).toBeLessThanOrEqual(1);
    await client.close();
  });

  it('runs a data tool as a billed job, reporting progress while it runs, and answers its items', async () => {
    const { client } = await connect();
    const before = (await json<AccountBody>(await server.request('/v1/account'))).balance;
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'maps', arguments: { query: 'bakery', location: 'Berlin', limit: 2 } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { job_id: string; cost: number; items: unknown[] };
    expect(answer.items).toHaveLength(2);
    expect(answer.items[0]).toMatchObject({ type: 'place', value: 'Near Bakery', phone: '+49 30 111' });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toContain(`Job ${answer.job_id} queued`);
    expect(progress.map((update) => update.progress)).toEqual(progress.map((_, index) => index + 1));
    // Billed as POST /v1/tools/maps bills: the ceiling reserved, the actual cost charged, the rest released.
    const job = (await json<JobEnvelope>(await server.request(`/v1/tools/jobs/${answer.job_id}`))).data;
    expect(job).toMatchObject({ status: 'succeeded', tool: 'maps', cost: answer.cost });
    const after = (await json<AccountBody>(await server.request('/v1/account'))).balance;
    expect(after).toBeCloseTo(before - answer.cost, 6);
    const ledger = (await json<LedgerBody>(await server.request('/v1/account/ledger?limit=100'))).data.filter(
      (entry) => entry.ref === answer.job_id,
    );
    expect(ledger.map((entry) => entry.kind).sort()).toEqual(['charge', 'release', 'reserve']);

    // The route's cache rules: the same search again is answered from the cache, at no cost.
    const again = await client.callTool({ name: 'maps', arguments: { query: 'bakery', location: 'Berlin', limit: 2 } });
    expect(again.structuredContent).toMatchObject({ cached: true, cost: 0, items: answer.items });
    expect((await json<AccountBody>(await server.request('/v1/account'))).balance).toBeCloseTo(after, 6);
    await client.close();
  });

  it("refuses a data tool whose ceiling the balance cannot hold, as the route does (402's message, nothing queued)", async () => {
    const poor = await server.newAccount(1);
    const { client } = await connect('/mcp', poor.apiKey);
    const result = await client.callTool({ name: 'maps', arguments: { query: 'dentist', location: 'Berlin' } });
    expect(result.isError).toBe(true);
    const route = await server.request('/v1/tools/maps', {
      method: 'POST',
      apiKey: poor.apiKey,
      json: { query: 'dentist', location: 'Berlin' },
    });
    expect(route.status).toBe(402);
    expect(text(result)).toBe(`Error: ${(await json<ErrorBody>(route)).error.message}`);
    const jobs = await json<{ data: unknown[] }>(await server.request('/v1/tools/jobs', { apiKey: poor.apiKey }));
    expect(jobs.data).toEqual([]);
    await client.close();
  });

  it('reads the account files and vector-store files as resources', async () => {
    const { client } = await connect();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      `fathom://files/${fileId}`,
      `fathom://vector_stores/${storeId}/files/${fileId}`,
    ]);
    expect(resources.every((resource) => resource.name === 'handbook.md')).toBe(true);
    const file = await client.readResource({ uri: `fathom://files/${fileId}` });
    expect(file.contents[0]).toMatchObject({ mimeType: 'text/plain' });
    expect((file.contents[0] as { text: string }).text).toContain('Saturdays from 10:00');
    const storeFile = await client.readResource({ uri: `fathom://vector_stores/${storeId}/files/${fileId}` });
    expect((storeFile.contents[0] as { text: string }).text).toContain('five working days');
    await client.close();
  });

  it("pages resources/list: the files first, then each store's files, each exactly once", async () => {
    const other = await server.newAccount();
    const ids: string[] = [];
    for (let index = 0; index < 101; index++) {
      const file = await other.client.files.create({
        file: await toFile(Buffer.from(`note ${index}`), `note-${index}.txt`),
        purpose: 'assistants',
      });
      ids.push(file.id);
    }
    const store = await other.client.vectorStores.create({ name: 'notes', file_ids: ids.slice(0, 2) });
    const { client } = await connect('/mcp', other.apiKey);
    const first = await client.listResources();
    expect(first.resources).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect([...first.resources, ...second.resources].map((resource) => resource.uri)).toEqual([
      ...ids.map((id) => `fathom://files/${id}`),
      `fathom://vector_stores/${store.id}/files/${ids[0]}`,
      `fathom://vector_stores/${store.id}/files/${ids[1]}`,
    ]);
    expect(second.resources.at(-1)!.name).toBe('note-1.txt');
    const bad = await client.listResources({ cursor: 'not-a-cursor' }).catch((caught: unknown) => caught);
    expect((bad as McpError).code).toBe(ErrorCode.InvalidParams);
    await client.close();
  });

  it('runs a published agent with its start variables', async () => {
    const { client } = await connect();
    const result = await client.callTool({ name: 'agent_harbour_desk', arguments: { message: 'hello desk', customer_name: 'Ana' } });
    expect(text(result)).toContain('You said: hello desk');
    const missing = await client.callTool({ name: 'agent_harbour_desk', arguments: { message: 'hello' } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain("Missing required variable: 'customer_name'");
    await client.close();
  });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
};
const LIST_TOOLS = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** One raw request to an MCP endpoint, as a client sends it. */
function raw(method: string, options: { body?: unknown; session?: string; apiKey?: string | null; path?: string } = {}) {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  if (options.apiKey !== null) headers.authorization = `Bearer ${options.apiKey ?? server.apiKey}`;
  if (options.session) headers['mcp-session-id'] = options.session;
  return fetch(`${server.url}${options.path ?? '/mcp'}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

describe('/mcp when the client goes away', () => {
  it('ends the agent run it started as failed, not in progress forever', async () => {
    const { client } = await connect();
    const requestsBefore = upstream.requests.length;
    const call = client
      .callTool({ name: 'agent_harbour_desk', arguments: { message: 'please hang', customer_name: 'Ana' } })
      .catch(() => 'closed');
    const deadline = Date.now() + 10_000;
    while (upstream.requests.length === requestsBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await client.close();
    expect(await call).toBe('closed');
    let runs: Array<{ status: string; message: string; error: string | null }> = [];
    while (Date.now() < deadline) {
      runs = (await json<{ data: typeof runs }>(await server.request(`/v1/agents/${agentId}/runs?limit=100`))).data;
      if (runs.find((run) => run.message === 'please hang')?.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(runs.find((run) => run.message === 'please hang')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('cancelled'),
    });
  });
});

describe('/mcp sessions over HTTP', () => {
  it('answers 401 in OpenAI shape without a valid key, before reading the body', async () => {
    const missing = await raw('POST', { body: INITIALIZE, apiKey: null });
    expect(missing.status).toBe(401);
    expect((await json<ErrorBody>(missing)).error.code).toBe('invalid_api_key');
    // A body that never ends is not waited for: the key is checked first.
    const never = new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"jsonrpc":')) });
    const hanging = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer fth_wrong', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: never,
      duplex: 'half',
    } as RequestInit);
    expect(hanging.status).toBe(401);
  });

  it('opens a session at initialize, refuses other requests without one (400) or with an unknown one (404)', async () => {
    const opened = await raw('POST', { body: INITIALIZE });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^mcps_[0-9A-Za-z]{40}$/);
    expect(await opened.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'fathom' }, protocolVersion: '2025-06-18' } });

    expect((await raw('POST', { body: LIST_TOOLS, session })).status).toBe(200);
    const without = await raw('POST', { body: LIST_TOOLS });
    expect(without.status).toBe(400);
    expect(await json<ErrorBody>(without)).toMatchObject({ error: { param: 'Mcp-Session-Id', code: 'missing_required_parameter' } });
    const unknown = await raw('POST', { body: LIST_TOOLS, session: 'mcps_unknown' });
    expect(unknown.status).toBe(404);
    expect(await json<ErrorBody>(unknown)).toMatchObject({
      error: { message: "No MCP session found with id 'mcps_unknown'.", param: 'Mcp-Session-Id', code: 'not_found' },
    });
  });

  it('ends a session with DELETE: later requests with it answer 404', async () => {
    const { client, transport } = await connect();
    const session = transport.sessionId!;
    expect(session).toMatch(/^mcps_/);
    await transport.terminateSession();
    expect((await raw('POST', { body: LIST_TOOLS, session })).status).toBe(404);
    expect((await raw('DELETE', { session })).status).toBe(404);
    await client.close();
  });

  it('answers GET with 405: every server message travels on the answer of its request', async () => {
    const opened = await raw('POST', { body: INITIALIZE });
    const response = await fetch(`${server.url}/mcp`, {
      headers: {
        authorization: `Bearer ${server.apiKey}`,
        accept: 'text/event-stream',
        'mcp-session-id': opened.headers.get('mcp-session-id')!,
      },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, DELETE');
    expect((await json<ErrorBody>(response)).error.code).toBe('method_not_allowed');
  });
});

describe('/mcp keeps accounts apart', () => {
  it("shows another account none of this account's tools, stores, files or sessions", async () => {
    const other = await server.newAccount();
    const { client } = await connect('/mcp', other.apiKey);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('agent_'))).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);

    const search = await client.callTool({ name: 'file_search', arguments: { query: 'refund', vector_store_ids: [storeId] } });
    expect(search.isError).toBe(true);
    expect(text(search)).toContain(`No vector store found with id '${storeId}'`);
    const stores = await client.callTool({ name: 'list_vector_stores', arguments: {} });
    expect(text(stores)).toBe('This account has no vector store.');

    for (const uri of [`fathom://files/${fileId}`, `fathom://vector_stores/${storeId}/files/${fileId}`]) {
      const error = await client.readResource({ uri }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32002);
    }
    const agent = await client.callTool({ name: 'agent_harbour_desk', arguments: { message: 'hi' } }).catch((caught: unknown) => caught);
    expect((agent as McpError).code).toBe(ErrorCode.InvalidParams);

    // A session belongs to its account: the first account's session with this key is unknown.
    const { transport: theirs } = await connect();
    expect((await raw('POST', { body: LIST_TOOLS, session: theirs.sessionId!, apiKey: other.apiKey })).status).toBe(404);
    const theirAgent = await raw('POST', { body: INITIALIZE, path: `/v1/agents/${ordersAgentId}/mcp`, apiKey: other.apiKey });
    expect(theirAgent.status).toBe(404);
    await client.close();
  });
});

describe('/v1/agents/{id}/mcp', () => {
  it("offers run and the agent's Webhook routes, calling them with the card's credentials kept server-side", async () => {
    const { client, transport } = await connect(`/v1/agents/${ordersAgentId}/mcp`);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run', 'get_order', 'cancel_order']);
    expect(JSON.stringify(tools)).not.toContain(SECRET);
    expect(JSON.stringify(tools)).not.toContain(ordersApi.url);
    expect(tools[1]!.inputSchema).toMatchObject({ required: ['order_id'] });
    expect(tools[0]!.inputSchema).toMatchObject({ required: ['message', 'customer_name'] });

    const order = await client.callTool({ name: 'get_order', arguments: { order_id: 'A-100' } });
    expect(order.isError).toBeFalsy();
    expect(text(order)).toContain('shipped');
    expect(ordersApi.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(order)).not.toContain(SECRET);

    const run = await client.callTool({ name: 'run', arguments: { message: 'where is my order', customer_name: 'Ana' } });
    expect(text(run)).toContain('You said: where is my order');

    // A session of one agent's endpoint is not a session of /mcp.
    expect((await raw('POST', { body: LIST_TOOLS, session: transport.sessionId! })).status).toBe(404);
    await client.close();
  });

  it('answers 404 for an unknown agent and 409 for one never published', async () => {
    expect((await raw('POST', { body: INITIALIZE, path: '/v1/agents/agent_nope/mcp' })).status).toBe(404);
    const draft = await server.request('/v1/agents', { method: 'POST', json: { name: 'Draft', workflow: ordersWorkflow() } });
    const draftId = (await json<AgentEnvelope>(draft)).agent.id;
    const refused = await raw('POST', { body: INITIALIZE, path: `/v1/agents/${draftId}/mcp` });
    expect(refused.status).toBe(409);
    expect((await json<ErrorBody>(refused)).error.code).toBe('agent_not_published');
  });
});
