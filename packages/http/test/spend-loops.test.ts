import { createFakeOpenAIUpstream, createTestServer, respond, type FakeUpstream, type TestServer } from '@fathom/core/test';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow } from './agents-workflows';
import { type AccountBody, type AgentEnvelope, json, type LedgerBody, startFathom, type TestFathom } from './harness';

/*
 * Every model turn of every capability passes the chat adapter's meter: tool loops, file_search,
 * background responses, assistant runs and agent runs are charged exactly the upstream's usage at the
 * configured price, one hold per turn.
 */

// Each turn reports 100 prompt and 20 completion tokens: 100 × 1 + 20 × 2 = 140 micro-units.
const TURN = 0.00014;
const USAGE = { prompt_tokens: 100, completion_tokens: 20 };

let upstream: FakeUpstream;
let orders: TestServer;
let server: TestFathom;

beforeAll(async () => {
  orders = await createTestServer({
    'GET /api/orders/A-100': (_request, response) => respond.json(response, 200, { id: 'A-100', status: 'shipped' }),
  });
  upstream = await createFakeOpenAIUpstream((request) => {
    const last = request.messages.at(-1);
    const tools: string[] = (request.tools ?? []).map((tool: { function: { name: string } }) => tool.function.name);
    if (last.role === 'tool') return { content: 'Here is what I found.', usage: USAGE };
    if (tools.includes('file_search')) return { toolCalls: [{ name: 'file_search', arguments: { query: 'refunds' } }], usage: USAGE };
    if (tools.includes('get_order')) return { toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-100' } }], usage: USAGE };
    if (tools.includes('get_weather')) return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }], usage: USAGE };
    return { content: 'Plain answer.', usage: USAGE, delayMs: 5 };
  });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
      AGENT_EGRESS_ALLOW: '127.0.0.1',
    },
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  await orders?.close();
});

async function spentBy(apiKey: string): Promise<number> {
  const balance = (await json<AccountBody>(await server.request('/v1/account', { apiKey }))).balance;
  return Math.round((10 - balance) * 1e6) / 1e6;
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('every model turn is charged', () => {
  it('Responses with a function tool: each request of the loop is charged its turn', async () => {
    const account = await server.newAccount(10);
    const weather = {
      type: 'function' as const,
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: false,
    };
    const first = await account.client.responses.create({ model: 'fake/fake-model', input: 'Weather?', tools: [weather] });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toBeDefined();
    await account.client.responses.create({
      model: 'fake/fake-model',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.type === 'function_call' ? call.call_id : '', output: '12 C' }],
    });
    expect(await spentBy(account.apiKey)).toBe(2 * TURN);
  });

  it('Responses with file_search: both model turns of one request are charged, streamed', async () => {
    const account = await server.newAccount(10);
    const file = await account.client.files.create({
      file: await toFile(Buffer.from('Refunds take five days.'), 'r.md'),
      purpose: 'assistants',
    });
    const store = await account.client.vectorStores.create({ name: 'docs' });
    await account.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
    const stream = await account.client.responses.create({
      model: 'fake/fake-model',
      input: 'Refunds?',
      tools: [{ type: 'file_search', vector_store_ids: [store.id] }],
      stream: true,
    });
    for await (const _event of stream);
    expect(await spentBy(account.apiKey)).toBe(2 * TURN);
    const ledger = (await json<LedgerBody>(await server.request('/v1/account/ledger?limit=100', { apiKey: account.apiKey }))).data;
    // One hold per turn, each released and charged once.
    expect(ledger.filter((entry) => entry.kind === 'reserve')).toHaveLength(2);
    expect(ledger.filter((entry) => entry.kind === 'charge')).toHaveLength(2);
  });

  it('a background response is charged its turn', async () => {
    const account = await server.newAccount(10);
    const created = await account.client.responses.create({ model: 'fake/fake-model', input: 'Later.', background: true });
    await until(async () => (await account.client.responses.retrieve(created.id)).status === 'completed');
    await until(async () => (await spentBy(account.apiKey)) === TURN);
  });

  it('an assistant run is charged its turn', async () => {
    const account = await server.newAccount(10);
    const assistant = await account.client.beta.assistants.create({ model: 'fake/fake-model', name: 'helper' });
    const run = await account.client.beta.threads.createAndRunPoll({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'Hello' }] },
    });
    expect(run.status).toBe('completed');
    expect(await spentBy(account.apiKey)).toBe(TURN);
  });

  it('an agent run with a Webhook card is charged both model turns', async () => {
    const account = await server.newAccount(10);
    const created = await server.request('/v1/agents', {
      method: 'POST',
      apiKey: account.apiKey,
      json: { name: 'Orders', workflow: ordersWorkflow({ baseUrl: `${orders.url}/api/`, token: 'sk-secret' }) },
    });
    const agentId = (await json<AgentEnvelope>(created)).agent.id;
    await server.request(`/v1/agents/${agentId}/publish`, { method: 'POST', apiKey: account.apiKey });
    const run = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      apiKey: account.apiKey,
      json: { message: 'Where is A-100?', variables: { customer_name: 'Ana' } },
    });
    expect(run.status).toBe(200);
    expect(await spentBy(account.apiKey)).toBe(2 * TURN);
  });
});
