import type { Logger } from '../internal/logger';
import type { AgentWebhooks } from './agent-deps';
import { type AgentTool, agentTools, compiledCards } from './agent-tools';
import { WorkflowGraph } from './workflow-graph';
import type { StartNode, StartVariable, Workflow } from './workflow-types';

/**
 * What a client outside the workflow may call of one published agent (Fathom's MCP endpoint
 * `/v1/agents/{id}/mcp`): the version's start variables, and the Webhook routes its agent nodes see,
 * each run with the stored card, so the card's configuration and credentials never leave core.
 */
export interface PublishedAgentTools {
  agent: { id: string; name: string; version: number };
  /** The start node's variables: what a run takes beside its message. */
  variables: StartVariable[];
  /** The routes as tools, by tool name, in the order the agent nodes see them. */
  tools: Map<string, AgentTool>;
}

export interface PublishedToolsOptions {
  agent: { id: string; account_id: string; name: string; version: number };
  workflow: Workflow;
  webhooks: AgentWebhooks;
  log: Logger;
}

/**
 * The tools of every agent node of a published workflow, merged: each node's cards (its slots and what a
 * pipeline hands it) under the same sanitisation, collision rule and `tools_filter` as a run, without the
 * built-in tools (they call models and services on the account's behalf, not the agent's own routes).
 */
export function publishedAgentTools(options: PublishedToolsOptions): PublishedAgentTools {
  const { agent, workflow, webhooks, log } = options;
  const graph = new WorkflowGraph(workflow);
  const compile = compiledCards((cards) => webhooks.compile(cards));
  const tools = new Map<string, AgentTool>();
  for (const node of workflow.nodes) {
    if (node.type !== 'agent') continue;
    const seen = agentTools({
      agentId: agent.id,
      node,
      cards: graph.visibleCards(node),
      builtIns: [],
      webhooks,
      accountId: agent.account_id,
      log,
      compile,
    });
    for (const [name, tool] of seen) if (!tools.has(name)) tools.set(name, tool);
  }
  const start = workflow.nodes.find((node): node is StartNode => node.type === 'start');
  return { agent: { id: agent.id, name: agent.name, version: agent.version }, variables: start?.data.variables ?? [], tools };
}
