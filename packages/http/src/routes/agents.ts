import {
  AgentCreateParams,
  AgentDeleted,
  AgentEnvelope,
  AgentListParams,
  AgentRunCreateParams,
  AgentRunEnvelope,
  type AgentRunEvent,
  AgentRunListParams,
  AgentRunsPage,
  AgentRunStreamEvent,
  AgentsPage,
  AgentToolsPreviewParams,
  AgentUpdateParams,
  AgentVersionEnvelope,
  AgentVersionListParams,
  AgentVersionPath,
  AgentVersionsPage,
  Type,
  WorkflowToolsPreview,
} from '@fathom/core';
import { defineRoute, type Route } from '../route';
import { sendSse } from '../sse';

/** Core run parts -> SSE events of the same name (`AgentRunStreamEvent`); only the fields of the API go on the wire. */
function toSse(event: AgentRunEvent): AgentRunStreamEvent {
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

/** The agent service (docs/agents.md): agents, their published versions, runs, and the live tool preview. */
export const agentsRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/agents',
    summary: 'Create an agent: its workflow is validated and saved as the draft.',
    operationId: 'createAgent',
    schema: { body: AgentCreateParams, response: AgentEnvelope },
    handler: async ({ fathom, account, body }) => ({ agent: await fathom.agents.create(account.id, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents',
    summary: 'List agents.',
    operationId: 'listAgents',
    schema: { querystring: AgentListParams, response: AgentsPage },
    handler: ({ fathom, account, query }) => fathom.agents.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id',
    summary: 'Retrieve an agent with its draft workflow (card secrets masked).',
    operationId: 'getAgent',
    schema: { response: AgentEnvelope },
    handler: async ({ fathom, account, params }) => ({ agent: await fathom.agents.retrieve(account.id, params.id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id',
    summary: "Change an agent's name or draft workflow; the published version runs until the next publish.",
    operationId: 'updateAgent',
    schema: { body: AgentUpdateParams, response: AgentEnvelope },
    handler: async ({ fathom, account, params, body }) => ({ agent: await fathom.agents.update(account.id, params.id, body) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/agents/:id',
    summary: 'Delete an agent with its versions and runs.',
    operationId: 'deleteAgent',
    schema: { response: AgentDeleted },
    handler: ({ fathom, account, params }) => fathom.agents.delete(account.id, params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id/publish',
    summary: 'Publish the draft as the next version (the one that runs).',
    operationId: 'publishAgent',
    schema: { body: Type.Object({}), response: AgentEnvelope },
    handler: async ({ fathom, account, params }) => ({ agent: await fathom.agents.publish(account.id, params.id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:id/run',
    summary: 'Run the published version: the finished run, or its events with `stream: true`.',
    operationId: 'createAgentRun',
    schema: { body: AgentRunCreateParams, response: AgentRunEnvelope, stream: AgentRunStreamEvent },
    handler: async ({ fathom, account, params, body, request, reply }) => {
      if (body.stream !== true) return { run: await fathom.agents.runs.create(account.id, params.id, body) };
      const started = await fathom.agents.runs.stream(account.id, params.id, body);
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
    summary: 'Preview the tools each agent node of a workflow (saved or not, finished or not) offers its model.',
    operationId: 'previewAgentTools',
    schema: { body: AgentToolsPreviewParams, response: WorkflowToolsPreview },
    handler: ({ fathom, body }) => fathom.agents.tools.preview(body),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/versions',
    summary: "List an agent's published versions.",
    operationId: 'listAgentVersions',
    schema: { querystring: AgentVersionListParams, response: AgentVersionsPage },
    handler: ({ fathom, account, params, query }) => fathom.agents.versions.list(account.id, params.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/versions/:version',
    summary: 'Retrieve one published version with its workflow (card secrets masked).',
    operationId: 'getAgentVersion',
    schema: { params: AgentVersionPath, response: AgentVersionEnvelope },
    handler: async ({ fathom, account, params }) => ({
      version: await fathom.agents.versions.retrieve(account.id, params.id, Number(params.version)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/runs',
    summary: "List an agent's runs (without their steps).",
    operationId: 'listAgentRuns',
    schema: { querystring: AgentRunListParams, response: AgentRunsPage },
    handler: ({ fathom, account, params, query }) => fathom.agents.runs.list(account.id, params.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:id/runs/:run_id',
    summary: 'Retrieve a run with its steps.',
    operationId: 'getAgentRun',
    schema: { response: AgentRunEnvelope },
    handler: async ({ fathom, account, params }) => ({ run: await fathom.agents.runs.retrieve(account.id, params.id, params.run_id) }),
  }),
];
