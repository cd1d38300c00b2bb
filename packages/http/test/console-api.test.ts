import { createFakeOpenAIUpstream, createTestServer, type FakeUpstream, respond, type TestServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOfType, ordersWorkflow } from './agents-workflows';
import {
  type AdminAccountsBody,
  type AgentEnvelope,
  type ErrorBody,
  json,
  type RunEnvelope,
  startFathom,
  type TestFathom,
  type ToolsPreviewBody,
  type VersionEnvelope,
  type VersionsBody,
} from './harness';

/** Routes added for the console: tool preview, versions, masked card secrets, admin account list. */
describe('API routes the console uses', () => {
  let server: TestFathom;
  let api: TestServer;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    api = await createTestServer({
      'GET /api/orders/A-1': (request, response) =>
        request.headers.authorization === 'Bearer sk-live-123'
          ? respond.json(response, 200, { status: 'shipped' })
          : respond.json(response, 401, { error: 'no' }),
    });
    // Calls get_order once, then answers with the tool's result.
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      return last.role === 'tool' ? { content: last.content } : { toolCalls: [{ name: 'get_order', arguments: { order_id: 'A-1' } }] };
    });
    server = await startFathom({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }), AGENT_EGRESS_ALLOW: '127.0.0.1' },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await api.close();
    await upstream.close();
  });

  /** The status and the JSON body (of the shape `T`) of one request. */
  const call = async <T = unknown>(path: string, init?: Parameters<TestFathom['request']>[1]) => {
    const response = await server.request(path, init);
    return { status: response.status, body: await json<T>(response) };
  };

  it('never answers a card secret back, and keeps it when the mask is sent back', async () => {
    const workflow = ordersWorkflow({ token: 'sk-live-123', baseUrl: `${api.url}/api`, model: 'fake/fake-model', variables: [] });
    const created = await call<AgentEnvelope>('/v1/agents', { method: 'POST', json: { name: 'Orders', workflow } });
    expect(created.status).toBe(200);
    expect(JSON.stringify(created.body)).not.toContain('sk-live-123');
    const id = created.body.agent.id;
    expect(nodeOfType(created.body.agent.workflow, 'webhook').data.config.auth).toMatchObject({ token: '********' });
    const fetched = await call<AgentEnvelope>(`/v1/agents/${id}`);
    expect(JSON.stringify(fetched.body)).not.toContain('sk-live-123');
    const listed = await call('/v1/agents');
    expect(JSON.stringify(listed.body)).not.toContain('sk-live-123');

    // GET -> edit -> POST with the mask in place keeps the stored token (the run still authenticates).
    const edited = fetched.body.agent.workflow;
    nodeOfType(edited, 'agent').data.system_prompt = 'Be brief.';
    const updated = await call<AgentEnvelope>(`/v1/agents/${id}`, { method: 'POST', json: { workflow: edited } });
    expect(updated.status).toBe(200);
    expect(nodeOfType(updated.body.agent.workflow, 'agent').data.system_prompt).toBe('Be brief.');
    await call(`/v1/agents/${id}/publish`, { method: 'POST' });
    const run = await call<RunEnvelope>(`/v1/agents/${id}/run`, { method: 'POST', json: { message: 'Where is A-1?' } });
    expect(run.body.run.output).toContain('shipped');
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer sk-live-123');

    // A mask where nothing is stored is refused, naming the field.
    const copy = await call<ErrorBody>('/v1/agents', { method: 'POST', json: { name: 'Copy', workflow: edited } });
    expect(copy.status).toBe(400);
    expect(copy.body.error).toMatchObject({ code: 'masked_secret_unknown', param: 'workflow.nodes[2].data.config.auth.token' });
  });

  it('lists published versions newest first and answers one with its workflow, 404 for other accounts', async () => {
    const { body } = await call<AgentEnvelope>('/v1/agents', {
      method: 'POST',
      json: { name: 'Versioned', workflow: ordersWorkflow({ model: 'fake/m' }) },
    });
    const id = body.agent.id;
    expect((await call(`/v1/agents/${id}/versions`)).body).toEqual({
      object: 'list',
      data: [],
      first_id: null,
      last_id: null,
      has_more: false,
    });
    await call(`/v1/agents/${id}/publish`, { method: 'POST' });
    await call(`/v1/agents/${id}`, { method: 'POST', json: { name: 'Versioned 2' } });
    await call(`/v1/agents/${id}/publish`, { method: 'POST' });
    const versions = await call<VersionsBody>(`/v1/agents/${id}/versions`);
    expect(versions.body.data.map((version) => [version.id, version.version, version.name])).toEqual([
      [`${id}@2`, 2, 'Versioned 2'],
      [`${id}@1`, 1, 'Versioned'],
    ]);
    const one = await call<VersionEnvelope>(`/v1/agents/${id}/versions/1`);
    expect(one.body.version).toMatchObject({ object: 'agent.version', version: 1, name: 'Versioned' });
    expect(nodeOfType(one.body.version.workflow, 'webhook').data.config.auth).toMatchObject({ token: '********' });
    expect((await call(`/v1/agents/${id}/versions/3`)).status).toBe(404);
    expect((await call(`/v1/agents/${id}/versions/abc`)).status).toBe(400);
    const other = await server.newAccount();
    expect((await call(`/v1/agents/${id}/versions`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(`/v1/agents/${id}/versions/1`, { apiKey: other.apiKey })).status).toBe(404);
  });

  it('previews the tools of each agent of an unsaved workflow, with its validation result', async () => {
    const workflow = ordersWorkflow();
    const preview = await call<ToolsPreviewBody>('/v1/agents/tools', { method: 'POST', json: { workflow } });
    expect(preview.status).toBe(200);
    expect(preview.body.validation_error).toBeNull();
    const [support] = preview.body.agents;
    expect(support?.node_id).toBe('support');
    expect(support?.tools.map((tool) => tool.function.name)).toEqual(['summarize', 'get_order', 'cancel_order']);
    expect(support?.tools[1]?.function.description).toContain('WHEN TO USE: When the customer asks where an order is.');
    expect(JSON.stringify(preview.body)).not.toContain('sk-orders-secret');
    delete workflow.nodes[1].data.model;
    const invalid = await call<ToolsPreviewBody>('/v1/agents/tools', { method: 'POST', json: { workflow } });
    expect(invalid.body.validation_error).toMatchObject({ code: 'missing_required_parameter', param: 'workflow.nodes[1].data.model' });
    // The preview reports exactly what a save of the same workflow answers (one declaration for both).
    const save = await call<ErrorBody>('/v1/agents', { method: 'POST', json: { name: 'Unfinished', workflow } });
    expect(save.status).toBe(400);
    expect(invalid.body.validation_error).toEqual({
      message: save.body.error.message,
      param: save.body.error.param,
      code: save.body.error.code,
    });
    expect((await call('/v1/agents/tools', { method: 'POST', json: {} })).status).toBe(400);
    expect((await call('/v1/agents/tools', { method: 'POST', json: { workflow }, apiKey: 'nope' })).status).toBe(401);
  });

  it('lists accounts with key hints for the admin key only', async () => {
    const other = await server.newAccount(3);
    const list = await call<AdminAccountsBody>('/v1/admin/accounts?limit=100', { apiKey: server.adminKey });
    expect(list.status).toBe(200);
    const entry = list.body.data.find((account) => account.id === other.id);
    expect(entry).toMatchObject({ object: 'account', balance: 3, keys: [{ object: 'api_key', hint: `…${other.apiKey.slice(-4)}` }] });
    expect(JSON.stringify(list.body)).not.toContain(other.apiKey);
    expect((await call('/v1/admin/accounts', { apiKey: other.apiKey })).status).toBe(401);
  });
});
