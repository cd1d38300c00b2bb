import { Agent, hostedMcpTool, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import OpenAIClient from 'openai';
import {
  createFakeOpenAIUpstream,
  type FakeUpstream,
  startEdgeMcpServer,
  startEverythingServer,
  type TestMcpServer,
} from '@fathom/core/test';
import type { APIError } from 'openai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

const SECRET_TOKEN = 'sk-mcp-token-7f3a';
const SECRET_HEADER = 'hdr-secret-91c2';

let openai: FakeUpstream;
let server: TestFathom;
let everything: TestMcpServer;
/** The SDK-built edge server: it records every tools/call it receives. */
let edge: Awaited<ReturnType<typeof startEdgeMcpServer>>;

const env = () => ({
  FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: openai.baseUrl } }),
  AGENT_EGRESS_ALLOW: `127.0.0.1:${everything.port},127.0.0.1:${edge.port}`,
});

beforeAll(async () => {
  [openai, everything, edge] = await Promise.all([
    createFakeOpenAIUpstream([]),
    startEverythingServer('streamableHttp'),
    startEdgeMcpServer(),
  ]);
  server = await startFathom({ env: env() });
}, 120_000);

afterAll(async () => {
  await server?.close({ keepData: false });
  await openai?.close();
  await everything?.close();
  await edge?.close();
});

function mcpTool(extra: Record<string, unknown> = {}): OpenAI.Responses.Tool.Mcp {
  return {
    type: 'mcp',
    server_label: 'everything',
    server_url: everything.url,
    authorization: SECRET_TOKEN,
    headers: { 'X-Api-Key': SECRET_HEADER },
    ...extra,
  } as OpenAI.Responses.Tool.Mcp;
}

/** The OpenAI error envelope of an answer. */
async function errorOf(answer: Response): Promise<{ param: string; message: string }> {
  return ((await answer.json()) as { error: { param: string; message: string } }).error;
}

/** Every stored row of a response (body, request, items, events) as one string. */
async function storedText(): Promise<string> {
  const db = server.fathom.database;
  const rows = [
    ...(await db.all('SELECT body, request FROM responses')),
    ...(await db.all('SELECT item FROM response_items')),
    ...(await db.all('SELECT event FROM response_events')),
  ];
  return JSON.stringify(rows);
}

describe('the Responses mcp tool against server-everything', () => {
  it('lists the tools, runs a call the model makes, and answers with its output (require_approval never)', async () => {
    openai.push({ toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 40 } }] });
    openai.push({ content: 'The sum is 42.' });
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Add 2 and 40.',
      tools: [mcpTool({ require_approval: 'never' })],
    });
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    const listing = response.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools;
    expect(listing.server_label).toBe('everything');
    expect(listing.tools.map((tool) => tool.name)).toContain('get-sum');
    const call = response.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall;
    expect(call).toMatchObject({
      server_label: 'everything',
      name: 'get-sum',
      arguments: '{"a":2,"b":40}',
      status: 'completed',
      error: null,
    });
    expect(call.output).toContain('42');
    expect(response.output_text).toBe('The sum is 42.');
    // The model saw the server's tools as functions, then the call's output as the tool's answer.
    expect(openai.requests.at(-2).tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('get-sum');
    expect(openai.requests.at(-1).messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('42') });
    // The echoed tool keeps the label and URL only.
    expect(response.tools[0]).toEqual({ type: 'mcp', server_label: 'everything', server_url: everything.url, require_approval: 'never' });
  });

  it('asks for approval by default, runs an approved call exactly once, never runs a denied one, and refuses replayed or unknown ids', async () => {
    openai.push({ toolCalls: [{ name: 'echo', arguments: { message: 'approved once' } }] });
    const first = await server.client.responses.create({ model: 'fake/gpt-test', input: 'Echo it.', tools: [mcpTool()] });
    expect(first.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
    const request = first.output[1] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(request).toMatchObject({ server_label: 'everything', name: 'echo', arguments: '{"message":"approved once"}' });
    expect(request.id).toMatch(/^mcpr_/);

    openai.push({ content: 'Echoed.' });
    const approved = await server.client.responses.create({
      model: 'fake/gpt-test',
      previous_response_id: first.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
      tools: [mcpTool()],
    });
    // Listed once per conversation: the earlier mcp_list_tools item is reused.
    expect(approved.output.map((item) => item.type)).toEqual(['mcp_call', 'message']);
    expect(approved.output[0]).toMatchObject({ name: 'echo', approval_request_id: request.id, status: 'completed' });
    expect((approved.output[0] as OpenAI.Responses.ResponseOutputItem.McpCall).output).toContain('approved once');

    const replay = await server.request('/v1/responses', {
      method: 'POST',
      json: {
        model: 'fake/gpt-test',
        previous_response_id: approved.id,
        input: [{ type: 'mcp_approval_response', approval_request_id: request.id, approve: true }],
        tools: [mcpTool()],
      },
    });
    expect(replay.status).toBe(400);
    expect(await errorOf(replay)).toMatchObject({
      param: 'input[0].approval_request_id',
      message: expect.stringContaining('already answered'),
    });
    const unknown = await server.request('/v1/responses', {
      method: 'POST',
      json: {
        model: 'fake/gpt-test',
        previous_response_id: first.id,
        input: [{ type: 'mcp_approval_response', approval_request_id: 'mcpr_nope', approve: true }],
        tools: [mcpTool()],
      },
    });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).param).toBe('input[0].approval_request_id');

    openai.push({ toolCalls: [{ name: 'echo', arguments: { message: 'never sent' } }] });
    const second = await server.client.responses.create({ model: 'fake/gpt-test', input: 'Echo again.', tools: [mcpTool()] });
    const pending = second.output.at(-1) as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    openai.push({ content: 'Fine, not echoed.' });
    const denied = await server.client.responses.create({
      model: 'fake/gpt-test',
      previous_response_id: second.id,
      input: [{ type: 'mcp_approval_response', approval_request_id: pending.id, approve: false, reason: 'not today' }],
      tools: [mcpTool()],
    });
    expect(denied.output.map((item) => item.type)).toEqual(['message']);
    expect(openai.requests.at(-1).messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('declined') });
  });

  it('streams the mcp events framed by output_item events, with sequence numbers, and keeps the secrets out of events and storage', async () => {
    openai.push({ toolCalls: [{ name: 'get-sum', arguments: { a: 1, b: 1 } }] });
    openai.push({ content: 'Two.' });
    const response = await server.request('/v1/responses', {
      method: 'POST',
      json: { model: 'fake/gpt-test', input: 'One plus one?', stream: true, tools: [mcpTool({ require_approval: 'never' })] },
    });
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    const types = events.map((event) => event.type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      ...types.filter((type) => type === 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(text).not.toContain(SECRET_TOKEN);
    expect(text).not.toContain(SECRET_HEADER);
    const stored = await storedText();
    expect(stored).toContain('mcp_call');
    expect(stored).not.toContain(SECRET_TOKEN);
    expect(stored).not.toContain(SECRET_HEADER);
  });

  it('answers an mcp_list_tools error for a loopback or metadata server_url the allow-list does not name', async () => {
    openai.push({ content: 'No tools.' });
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Hi',
      tools: [
        { type: 'mcp', server_label: 'metadata', server_url: 'http://169.254.169.254/mcp', require_approval: 'never' },
        { type: 'mcp', server_label: 'loopback', server_url: `http://127.0.0.2:${everything.port}/mcp`, require_approval: 'never' },
      ],
    });
    const listings = response.output.filter((item) => item.type === 'mcp_list_tools') as OpenAI.Responses.ResponseOutputItem.McpListTools[];
    expect(listings.map((item) => [item.server_label, item.tools.length])).toEqual([
      ['metadata', 0],
      ['loopback', 0],
    ]);
    for (const listing of listings) expect(listing.error).toMatch(/Destination not allowed/);
    expect(openai.requests.at(-1).tools).toBeUndefined();
  });

  it('refuses connector_id and tunnel_id, and a tool without server_url that names no operator server, naming the field', async () => {
    for (const [tool, param] of [
      [{ type: 'mcp', server_label: 'gmail', connector_id: 'connector_gmail' }, 'tools[0].connector_id'],
      [{ type: 'mcp', server_label: 'x', server_url: everything.url, tunnel_id: 't' }, 'tools[0].tunnel_id'],
      [{ type: 'mcp', server_label: 'nowhere' }, 'tools[0].server_url'],
      [{ type: 'mcp', server_url: everything.url }, 'tools[0].server_label'],
    ] as const) {
      const answer = await server.request('/v1/responses', {
        method: 'POST',
        json: { model: 'fake/gpt-test', input: 'Hi', tools: [tool] },
      });
      expect(answer.status).toBe(400);
      expect((await errorOf(answer)).param).toBe(param);
    }
  });
});

describe('an approval answered by two requests at once', () => {
  it('runs the call once: one request runs it, the other answers 400 naming the field', async () => {
    const tool = { type: 'mcp', server_label: 'edge', server_url: edge.url } as OpenAI.Responses.Tool.Mcp;
    openai.push({ toolCalls: [{ name: 'echo', arguments: { text: 'only once' } }] });
    const first = await server.client.responses.create({ model: 'fake/gpt-test', input: 'Echo it.', tools: [tool] });
    const pending = first.output.at(-1) as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(pending.type).toBe('mcp_approval_request');
    openai.push({ content: 'Echoed once.' });
    const before = edge.calls.length;
    const answer = () =>
      server.request('/v1/responses', {
        method: 'POST',
        json: {
          model: 'fake/gpt-test',
          previous_response_id: first.id,
          input: [{ type: 'mcp_approval_response', approval_request_id: pending.id, approve: true }],
          tools: [tool],
        },
      });
    const answers = await Promise.all([answer(), answer()]);
    expect(answers.map((each) => each.status).sort()).toEqual([200, 400]);
    const refused = answers.find((each) => each.status === 400)!;
    expect(await errorOf(refused)).toMatchObject({
      param: 'input[0].approval_request_id',
      message: expect.stringContaining('already answered'),
    });
    const ran = (await answers.find((each) => each.status === 200)!.json()) as OpenAI.Responses.Response;
    expect(ran.output[0]).toMatchObject({ type: 'mcp_call', name: 'echo', approval_request_id: pending.id, output: 'only once' });
    expect(edge.calls.slice(before)).toEqual(['echo']);
  });
});

describe('tool_choice {type: "mcp"}', () => {
  const tools = () => [
    mcpTool({ require_approval: 'never' }),
    { type: 'mcp', server_label: 'edge', server_url: edge.url, require_approval: 'never' } as OpenAI.Responses.Tool.Mcp,
  ];
  const functionNames = (request: { tools?: Array<{ function: { name: string } }> }) =>
    (request.tools ?? []).map((tool) => tool.function.name);

  it('makes the first turn call the named tool of that server, under the name the model sees', async () => {
    openai.push({ toolCalls: [{ name: 'edge__echo', arguments: { text: 'forced' } }] }, { content: 'Forced it.' });
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Say something.',
      tools: tools(),
      tool_choice: { type: 'mcp', server_label: 'edge', name: 'echo' },
    });
    // Both servers have an `echo`: the model sees them apart, and the choice names the edge server's.
    const [first, second] = openai.requests.slice(-2);
    expect(first.tool_choice).toEqual({ type: 'function', function: { name: 'edge__echo' } });
    expect(functionNames(first)).toEqual(expect.arrayContaining(['edge__echo', 'everything__echo', 'get-sum']));
    expect(second.tool_choice).toBe('auto');
    expect(response.output.find((item) => item.type === 'mcp_call')).toMatchObject({
      server_label: 'edge',
      name: 'echo',
      output: 'forced',
    });
    expect(response.tool_choice).toEqual({ type: 'mcp', server_label: 'edge', name: 'echo' });
  });

  it("without a name, requires a call and offers only that server's tools", async () => {
    openai.push({ content: 'No call.' });
    await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Use the edge server.',
      tools: tools(),
      tool_choice: { type: 'mcp', server_label: 'edge' },
    });
    const sent = openai.requests.at(-1);
    expect(sent.tool_choice).toBe('required');
    expect(functionNames(sent).sort()).toEqual(['add_tool', 'edge__echo', 'fail', 'headers', 'huge', 'mixed', 'slow']);
  });

  it('answers 400 naming tool_choice.server_label or tool_choice.name when the server or the tool is not there', async () => {
    const refused = async (tool_choice: OpenAI.Responses.ToolChoiceMcp) =>
      server.client.responses.create({ model: 'fake/gpt-test', input: 'Hi', tools: tools(), tool_choice }).then(
        () => undefined,
        (error: APIError) => ({ status: error.status, param: error.param, message: error.message }),
      );
    const before = openai.requests.length;
    expect(await refused({ type: 'mcp', server_label: 'nowhere' })).toMatchObject({
      status: 400,
      param: 'tool_choice.server_label',
      message: expect.stringContaining("no mcp tool with server_label 'nowhere'"),
    });
    expect(await refused({ type: 'mcp', server_label: 'edge', name: 'get-sum' })).toMatchObject({
      status: 400,
      param: 'tool_choice.name',
      message: expect.stringContaining("has no tool 'get-sum'"),
    });
    expect(openai.requests.length).toBe(before);
  });
});

describe('the mcp tool in background responses', () => {
  it('runs with the headers kept out of the stored request, and a resumed stream replays the mcp events in order', async () => {
    openai.push({ toolCalls: [{ name: 'get-sum', arguments: { a: 3, b: 4 } }] }, { content: 'Seven.' });
    const created = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Three plus four?',
      background: true,
      tools: [mcpTool({ require_approval: 'never' })],
    });
    // The queued row's request (kept until the response ends) has the tool without its secrets.
    const queued = await server.fathom.database.get<{ request: string | null }>('SELECT request FROM responses WHERE id = ?', [created.id]);
    expect(queued?.request ?? '').not.toContain(SECRET_TOKEN);
    let final: OpenAI.Responses.Response | undefined;
    for (let attempt = 0; attempt < 200; attempt++) {
      final = await server.client.responses.retrieve(created.id);
      if (final.status === 'completed' || final.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(final?.status).toBe('completed');
    expect(final!.output.map((item) => item.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect((final!.output[1] as OpenAI.Responses.ResponseOutputItem.McpCall).output).toContain('7');

    const all: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of await server.client.responses.retrieve(created.id, { stream: true })) all.push(event);
    const mcpTypes = all.map((event) => event.type).filter((type) => type.startsWith('response.mcp_'));
    expect(mcpTypes).toEqual([
      'response.mcp_list_tools.in_progress',
      'response.mcp_list_tools.completed',
      'response.mcp_call_arguments.delta',
      'response.mcp_call_arguments.done',
      'response.mcp_call.in_progress',
      'response.mcp_call.completed',
    ]);
    const resumed: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of await server.client.responses.retrieve(created.id, { stream: true, starting_after: 4 })) resumed.push(event);
    expect(resumed.map((event) => event.sequence_number)).toEqual(all.slice(5).map((event) => event.sequence_number));
    expect(resumed[0]?.type).toBe(all[5]?.type);

    expect(await storedText()).not.toContain(SECRET_TOKEN);
    expect(await storedText()).not.toContain(SECRET_HEADER);
  });
});

describe('the OpenAI Agents SDK hostedMcpTool() through Fathom', () => {
  let runner: Runner;
  beforeAll(() => {
    setTracingDisabled(true);
    // A runner of this file's own: the SDK's default provider keeps the first client it was given for the
    // whole process, and test files share their worker process.
    runner = new Runner({
      modelProvider: new OpenAIProvider({
        openAIClient: new OpenAIClient({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 }),
      }),
    });
  });

  it('runs a call without approval, and one the agent approves in onApproval (history sent back as input)', async () => {
    openai.push({ toolCalls: [{ name: 'get-sum', arguments: { a: 20, b: 22 } }] }, { content: 'It is 42.' });
    const agent = new Agent({
      name: 'Calculator',
      model: 'fake/gpt-test',
      tools: [
        hostedMcpTool({ serverLabel: 'everything', serverUrl: everything.url, authorization: SECRET_TOKEN, requireApproval: 'never' }),
      ],
    });
    const result = await runner.run(agent, 'What is 20 + 22?');
    expect(result.finalOutput).toBe('It is 42.');
    expect(openai.requests.at(-1).messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('42') });

    const approvals: string[] = [];
    openai.push({ toolCalls: [{ name: 'echo', arguments: { message: 'via the agents sdk' } }] }, { content: 'Echoed it.' });
    const careful = new Agent({
      name: 'Careful',
      model: 'fake/gpt-test',
      tools: [
        hostedMcpTool({
          serverLabel: 'everything',
          serverUrl: everything.url,
          requireApproval: 'always',
          onApproval: async (_context, item) => {
            approvals.push((item.rawItem as { name?: string }).name ?? '');
            return { approve: true };
          },
        }),
      ],
    });
    const approved = await runner.run(careful, 'Echo something.');
    expect(approvals).toEqual(['echo']);
    expect(approved.finalOutput).toBe('Echoed it.');
    expect(openai.requests.at(-1).messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('via the agents sdk') });
  });
});
