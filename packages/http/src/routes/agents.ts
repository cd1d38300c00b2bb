import { parseListQuery, type AgentObject, type AgentRunEvent } from '@fathom/core';
import { defineRoute, type Route } from '../route';
import { sendSse, type SseEvent } from '../sse';

const idParams = { type: 'object', properties: { id: { type: 'string' } } } as const;

/** The agent as the API answers it; the owning account stays internal. */
function agentBody(agent: AgentObject) {
  const { account_id: _account, ...rest } = agent;
  return rest;
}

/** Core run parts -> SSE events of the same name; only the fields of the API go on the wire. */
function toSse(event: AgentRunEvent): SseEvent {
  switch (event.type) {
    case 'run.started':
      return { event: event.type, data: { run: event.run } };
    case 'message.delta':
      return { event: event.type, data: { content: event.content, node_id: event.node_id } };
    case 'tool_use':
      return { event: event.type, data: { id: event.id, tool: event.tool, input: event.input, node_id: event.node_id } };
    case 'tool_result':
      return { event: event.type, data: { id: event.id, tool: event.tool, output: event.output, node_id: event.node_id } };
    case 'run.completed':
      return { event: event.type, data: { run_id: event.run_id, output: event.output } };
    case 'run.failed':
      return { event: event.type, data: { run_id: event.run_id, error: event.error } };
  }
}

export const agentsRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/agents',
    schema: {
      body: {
        type: 'object',
        required: ['name', 'workflow'],
        properties: { name: { type: 'string', minLength: 1 }, workflow: { type: 'object' } },
      },
    },
    handler: async ({ fathom, account, body }) => ({ agent: agentBody(await fathom.agents.create(account.id, body)) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents',
    handler: async ({ fathom, account, query }) => {
      const page = await fathom.agents.list(account.id, parseListQuery(query));
      return { ...page, data: page.data.map(agentBody) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id',
    schema: { params: idParams },
    handler: async ({ fathom, account, params }) => ({ agent: agentBody(await fathom.agents.get(account.id, params.id)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id',
    schema: {
      params: idParams,
      body: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, workflow: { type: 'object' } } },
    },
    handler: async ({ fathom, account, params, body }) => ({ agent: agentBody(await fathom.agents.update(account.id, params.id, body)) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/agents/:id',
    schema: { params: idParams },
    handler: ({ fathom, account, params }) => fathom.agents.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id/publish',
    schema: { params: idParams },
    handler: async ({ fathom, account, params }) => ({ agent: agentBody(await fathom.agents.publish(account.id, params.id)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id/run',
    schema: {
      params: idParams,
      body: {
        type: 'object',
        required: ['message'],
        properties: { message: { type: 'string' }, variables: { type: 'object' }, stream: { type: 'boolean' } },
      },
    },
    handler: async ({ fathom, account, params, body, request, reply }) => {
      if (body.stream !== true) return { run: await fathom.agents.run(account.id, params.id, body) };
      const started = await fathom.agents.startRun(account.id, params.id, body);
      await sendSse(request, reply, async function* (signal) {
        for await (const event of started.events(signal)) yield toSse(event);
      });
      return undefined;
    },
  }),
  defineRoute({
    // The live tool preview: what each agent node of a (saved or unsaved) workflow offers its model.
    method: 'POST',
    path: '/v1/agents/tools',
    schema: { body: { type: 'object', required: ['workflow'], properties: { workflow: { type: 'object' } } } },
    handler: async ({ fathom, body }) => await fathom.agents.previewTools(body.workflow),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/versions',
    schema: { params: idParams },
    handler: ({ fathom, account, params, query }) => fathom.agents.listVersions(account.id, params.id, parseListQuery(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/versions/:version',
    schema: {
      params: { type: 'object', properties: { id: { type: 'string' }, version: { type: 'string', pattern: '^[0-9]+$' } } },
    },
    handler: async ({ fathom, account, params }) => ({
      version: await fathom.agents.getVersion(account.id, params.id, Number(params.version)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/runs',
    schema: { params: idParams },
    handler: ({ fathom, account, params, query }) => fathom.agents.listRuns(account.id, params.id, parseListQuery(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/runs/:run_id',
    handler: async ({ fathom, account, params }) => ({ run: await fathom.agents.getRun(account.id, params.id, params.run_id) }),
  }),
];
