import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow } from './agents-workflows';
import {
  type AgentEnvelope,
  type AgentBody,
  type ErrorBody,
  json,
  type ListBody,
  type RunEnvelope,
  type RunsBody,
  startFathom,
  type TestFathom,
} from './harness';

describe('agents API: validation, drafts, publishing, ownership', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await createFakeOpenAIUpstream((request) => ({ content: `echo: ${request.messages.at(-1).content}` }));
    server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await upstream.close();
  });

  const create = (workflow: unknown, apiKey?: string) =>
    server.request('/v1/agents', { method: 'POST', json: { name: 'Support bot', workflow }, apiKey });
  const error = async (response: Response) => (await json<ErrorBody>(response)).error;

  it('validates and saves a draft', async () => {
    const response = await create(ordersWorkflow());
    expect(response.status).toBe(200);
    const { agent } = await json<AgentEnvelope>(response);
    expect(agent).toMatchObject({ id: expect.stringMatching(/^agent_/), status: 'draft', version: null });
    const fetched = (await json<AgentEnvelope>(await server.request(`/v1/agents/${agent.id}`))).agent;
    expect(fetched).toMatchObject({ id: agent.id, name: 'Support bot', status: 'draft', version: null });
    expect(fetched.workflow.nodes).toHaveLength(4);
  });

  it("keeps an editor's own keys on nodes, edges, cards and routes, and gives them back as they were sent", async () => {
    const workflow = ordersWorkflow();
    workflow.nodes[0].position = { x: 10, y: 20 };
    workflow.nodes[1].selected = true;
    workflow.nodes[2].data.collapsed = false;
    workflow.nodes[2].data.config.routes[0].ui = { open: true };
    workflow.edges[0].animated = true;
    const { agent } = await json<AgentEnvelope>(await create(workflow));
    const fetched = (await json<AgentEnvelope>(await server.request(`/v1/agents/${agent.id}`))).agent.workflow as any;
    expect(fetched.nodes[0].position).toEqual({ x: 10, y: 20 });
    expect(fetched.nodes[1].selected).toBe(true);
    expect(fetched.nodes[2].data.collapsed).toBe(false);
    expect(fetched.nodes[2].data.config.routes[0].ui).toEqual({ open: true });
    expect(fetched.edges[0].animated).toBe(true);
    // The card secret stays masked in the answer, extra keys or not.
    expect(fetched.nodes[2].data.config.auth).toEqual({ type: 'bearer', token: '********' });
  });

  it('accepts the example workflow of examples/agent-with-webhook.json', async () => {
    const example = JSON.parse(readFileSync(new URL('../../../examples/agent-with-webhook.json', import.meta.url), 'utf8'));
    const response = await server.request('/v1/agents', { method: 'POST', json: example });
    expect(response.status).toBe(200);
    expect((await json<AgentEnvelope>(response)).agent).toMatchObject({ name: 'Shop support agent', status: 'draft' });
  });

  it.each([
    ['webhook_no_config', (w: any) => (w.nodes[2].data.config = { auth: { type: 'none' } }), "'Orders API'"],
    ['duplicate_route_name', (w: any) => (w.nodes[2].data.config.routes[1].name = 'Get Order'), "'Get Order'"],
    ['edge_unknown_node', (w: any) => (w.edges[1].target = 'finish'), "'finish'"],
    ['missing_start_node', (w: any) => w.nodes.splice(0, 1) && w.edges.splice(0, 1), 'start'],
    ['missing_end_node', (w: any) => w.nodes.splice(3, 1) && w.edges.splice(1, 1), 'end'],
    ['path_parameter_undeclared', (w: any) => (w.nodes[2].data.config.routes[0].path = '/orders/{{id}}'), '{{id}}'],
    ['path_parameter_not_required', (w: any) => (w.nodes[2].data.config.routes[0].parameters[0].required = false), "'order_id'"],
  ])('answers 400 with code %s and a message naming the culprit', async (code, change, named) => {
    const workflow = ordersWorkflow();
    change(workflow);
    const response = await create(workflow);
    expect(response.status).toBe(400);
    const body = await error(response);
    expect(body).toMatchObject({ type: 'invalid_request_error', code });
    expect(body.message).toContain(named);
  });

  it.each([
    [
      'a route without whenToUse',
      (w: any) => delete w.nodes[2].data.config.routes[1].whenToUse,
      'missing_required_parameter',
      'workflow.nodes[2].data.config.routes[1].whenToUse',
    ],
    [
      'a parameter with a blank description',
      (w: any) => (w.nodes[2].data.config.routes[0].parameters[0].description = '  '),
      'empty_string',
      'workflow.nodes[2].data.config.routes[0].parameters[0].description',
    ],
    ['an unknown node type', (w: any) => w.nodes.push({ id: 'n9', type: 'switch', data: {} }), 'invalid_value', 'workflow.nodes[4].type'],
    [
      'an auth type without its fields',
      (w: any) => (w.nodes[2].data.config.auth = { type: 'api_key', apiKey: 'k' }),
      'missing_required_parameter',
      'workflow.nodes[2].data.config.auth.apiKeyName',
    ],
  ])('refuses %s by the schema with code %s, naming the field, and saves nothing', async (_what, change, code, param) => {
    const workflow = ordersWorkflow();
    change(workflow);
    const before = (await json<ListBody<AgentBody>>(await server.request('/v1/agents?limit=100'))).data.length;
    const response = await create(workflow);
    expect(response.status).toBe(400);
    const body = await error(response);
    expect(body).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(body.message).toContain(`'${param}'`);
    expect((await json<ListBody<AgentBody>>(await server.request('/v1/agents?limit=100'))).data.length).toBe(before);
  });

  it('names missing request fields and never saves a refused workflow', async () => {
    const before = (await json<ListBody<AgentBody>>(await server.request('/v1/agents?limit=100'))).data.length;
    const response = await server.request('/v1/agents', { method: 'POST', json: { workflow: ordersWorkflow() } });
    expect(response.status).toBe(400);
    expect((await error(response)).message).toContain("'name'");
    await create({ nodes: [], edges: [] });
    expect((await json<ListBody<AgentBody>>(await server.request('/v1/agents?limit=100'))).data.length).toBe(before);
  });

  it('saves a draft whose model names an unconfigured vendor but refuses to publish it, naming the node', async () => {
    const { agent } = await json<AgentEnvelope>(await create(ordersWorkflow({ model: 'nobody/some-model' })));
    const response = await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    expect(response.status).toBe(400);
    const body = await error(response);
    expect(body.code).toBe('model_not_found');
    expect(body.param).toMatch(/^workflow\.nodes\[\d+\]\.data\.model$/);
    expect(body.message).toContain("unknown vendor 'nobody'");
    expect(body.message).toContain("'fake'");
  });

  it('publishes versions; only the published version runs; draft edits wait for the next publish', async () => {
    const { agent } = await json<AgentEnvelope>(await create(ordersWorkflow({ systemPrompt: 'Version one for {{customer_name}}.' })));
    const unpublished = await server.request(`/v1/agents/${agent.id}/run`, {
      method: 'POST',
      json: { message: 'hi', variables: { customer_name: 'Ana' } },
    });
    expect(unpublished.status).toBe(409);
    expect((await error(unpublished)).message).toMatch(/no published version.*publish/);

    const published = await json<AgentEnvelope>(await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' }));
    expect(published.agent).toMatchObject({ id: agent.id, status: 'published', version: 1, has_unpublished_changes: false });

    const edited = await server.request(`/v1/agents/${agent.id}`, {
      method: 'POST',
      json: { workflow: ordersWorkflow({ systemPrompt: 'Version two for {{customer_name}}.' }) },
    });
    expect((await json<AgentEnvelope>(edited)).agent).toMatchObject({ status: 'published', version: 1, has_unpublished_changes: true });
    const refused = await server.request(`/v1/agents/${agent.id}`, { method: 'POST', json: { workflow: { nodes: [], edges: [] } } });
    expect((await error(refused)).code).toBe('missing_start_node');

    const first = await json<RunEnvelope>(
      await server.request(`/v1/agents/${agent.id}/run`, { method: 'POST', json: { message: 'hi', variables: { customer_name: 'Ana' } } }),
    );
    expect(first.run).toMatchObject({ status: 'completed', version: 1, output: 'echo: hi' });
    expect(upstream.requests.at(-1).messages[0]).toEqual({ role: 'system', content: 'Version one for Ana.' });

    const second = await json<AgentEnvelope>(await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' }));
    expect(second.agent).toMatchObject({ status: 'published', version: 2 });
    const run = await json<RunEnvelope>(
      await server.request(`/v1/agents/${agent.id}/run`, {
        method: 'POST',
        json: { message: 'again', variables: { customer_name: 'Bo' } },
      }),
    );
    expect(run.run).toMatchObject({ status: 'completed', version: 2 });
    expect(upstream.requests.at(-1).messages[0]).toEqual({ role: 'system', content: 'Version two for Bo.' });

    const runs = await json<RunsBody>(await server.request(`/v1/agents/${agent.id}/runs`));
    expect(runs.data.map((item) => item.id)).toEqual([run.run.id, first.run.id]);
    const stored = await json<RunEnvelope>(await server.request(`/v1/agents/${agent.id}/runs/${first.run.id}`));
    expect(stored.run).toMatchObject({
      id: first.run.id,
      status: 'completed',
      output: 'echo: hi',
      steps: [{ type: 'message', node_id: 'support', content: 'echo: hi' }],
    });
  });

  it('answers 400 naming each missing required variable, and substitutes variables in the message', async () => {
    const workflow = ordersWorkflow({
      variables: [
        { name: 'customer_name', required: true },
        { name: 'plan', required: true },
        { name: 'tone', required: false },
      ],
    });
    const { agent } = await json<AgentEnvelope>(await create(workflow));
    await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    const response = await server.request(`/v1/agents/${agent.id}/run`, {
      method: 'POST',
      json: { message: 'hi', variables: { plan: '' } },
    });
    expect(response.status).toBe(400);
    const body = await error(response);
    expect(body.code).toBe('missing_variables');
    expect(body.message).toContain("'customer_name'");
    expect(body.message).toContain("'plan'");
    expect(body.message).not.toContain("'tone'");
    const ok = await json<RunEnvelope>(
      await server.request(`/v1/agents/${agent.id}/run`, {
        method: 'POST',
        json: { message: 'I am {{customer_name}} on {{plan}}', variables: { customer_name: 'Ana', plan: 'pro' } },
      }),
    );
    expect(ok.run.output).toBe('echo: I am Ana on pro');
  });

  it('keeps agents and runs private to their account (404 across accounts)', async () => {
    const { agent } = await json<AgentEnvelope>(await create(ordersWorkflow()));
    await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    const { run } = await json<RunEnvelope>(
      await server.request(`/v1/agents/${agent.id}/run`, { method: 'POST', json: { message: 'x', variables: { customer_name: 'A' } } }),
    );
    const other = await server.newAccount();
    for (const [method, path] of [
      ['GET', `/v1/agents/${agent.id}`],
      ['POST', `/v1/agents/${agent.id}`],
      ['POST', `/v1/agents/${agent.id}/publish`],
      ['POST', `/v1/agents/${agent.id}/run`],
      ['GET', `/v1/agents/${agent.id}/runs`],
      ['GET', `/v1/agents/${agent.id}/runs/${run.id}`],
      ['DELETE', `/v1/agents/${agent.id}`],
    ] as const) {
      const response = await server.request(path, {
        method,
        apiKey: other.apiKey,
        ...(method === 'POST' ? { json: { message: 'x', variables: { customer_name: 'A' } } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const list = await json<ListBody<AgentBody>>(await server.request('/v1/agents', { apiKey: other.apiKey }));
    expect(list).toMatchObject({ object: 'list', data: [], has_more: false });
    expect((await server.request(`/v1/agents/${agent.id}`)).status).toBe(200);
  });

  it('lists with pagination and deletes', async () => {
    const account = await server.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await json<AgentEnvelope>(await create(ordersWorkflow(), account.apiKey))).agent.id);
    const page = await json<ListBody<AgentBody>>(await server.request('/v1/agents?limit=2&order=asc', { apiKey: account.apiKey }));
    expect(page.data.map((agent) => agent.id)).toEqual(ids.slice(0, 2));
    expect(page.has_more).toBe(true);
    const rest = await json<ListBody<AgentBody>>(
      await server.request(`/v1/agents?limit=2&order=asc&after=${page.last_id}`, { apiKey: account.apiKey }),
    );
    expect(rest.data.map((agent) => agent.id)).toEqual([ids[2]]);
    const deleted = await server.request(`/v1/agents/${ids[0]}`, { method: 'DELETE', apiKey: account.apiKey });
    expect(await deleted.json()).toEqual({ id: ids[0], object: 'agent.deleted', deleted: true });
    expect((await server.request(`/v1/agents/${ids[0]}`, { apiKey: account.apiKey })).status).toBe(404);
  });
});
