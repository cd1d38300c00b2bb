import { agentRunTool, agentToolsByName, runTool } from './agent-run-tools';
import type { McpRouteTool, McpSources, PublishedAgent } from './sources';
import type { StartVariable } from '../agents';
import { type McpTool, type McpToolSet, textResult } from './types';

/**
 * The tools of `/mcp`: `fixed` — `file_search` and `list_vector_stores`, one per data tool the
 * installation can run (`documentTools`, `dataTools`) — then one per published agent of the account
 * (`agent_<name>`).
 */
export function accountToolSet(sources: McpSources, accountId: string, fixed: readonly McpTool[]): McpToolSet {
  return {
    async list() {
      const agents = await agentToolsByName(sources.agents, accountId);
      const agentTools = await Promise.all([...agents].map(([name, agent]) => agentRunTool(sources.agents, accountId, name, agent)));
      return [...fixed, ...agentTools];
    },
    async find(name) {
      const tool = fixed.find((candidate) => candidate.definition.name === name);
      if (tool || !name.startsWith('agent_')) return tool;
      const agent = (await agentToolsByName(sources.agents, accountId)).get(name);
      return agent && agentRunTool(sources.agents, accountId, name, agent);
    },
  };
}

/** One published agent as its endpoint serves it. */
export interface AgentEndpoint {
  agent: PublishedAgent;
  variables: StartVariable[];
  routes: McpRouteTool[];
}

/**
 * The tools of `/v1/agents/{id}/mcp`: `run` (the agent itself) and the Webhook routes its agent nodes
 * see, run with the stored cards. A route whose tool name is `run` is left out: `run` is the agent's.
 */
export function agentToolSet(sources: McpSources, endpoint: AgentEndpoint): McpToolSet {
  const { agent, variables, routes } = endpoint;
  const run = runTool(
    sources.agents,
    'run',
    agent,
    variables,
    `Runs the agent "${agent.name}" (published version ${agent.version}) with a message and answers its reply.`,
  );
  const tools = [run, ...routes.filter((route) => route.name !== 'run').map(routeTool)];
  return {
    list: async () => tools,
    find: async (name) => tools.find((tool) => tool.definition.name === name),
  };
}

/** A Webhook route as a tool: the definition the agent's model sees, and its text answer ("Error: …" is an error result). */
function routeTool(route: McpRouteTool): McpTool {
  return {
    definition: {
      name: route.name,
      description: route.description,
      inputSchema: (route.parameters ?? { type: 'object' }) as McpTool['definition']['inputSchema'],
      annotations: { openWorldHint: true },
    },
    async call(args, { signal }) {
      const text = await route.run(args, signal);
      return textResult(text, text.startsWith('Error:'));
    },
  };
}
