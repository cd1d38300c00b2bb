import { ConflictError, NotFoundError } from '../errors';
import type { LeasedTask, LeasedWorker } from '../internal/leased-worker';
import type { AgentsOptions } from './agent-deps';
import type { AgentRecord } from './agent-objects';
import type { AgentHead, AgentsRepository } from './agents-repository';
import type { BuiltInTool } from './built-in-tools';
import type { Agent } from './wire/agents';
import { maskWorkflowSecrets } from './workflow-secrets';

/** What the sub-resources of `fathom.agents` share: storage, dependencies, and the worker of leased runs. */
export interface AgentsContext {
  options: AgentsOptions;
  store: AgentsRepository;
  builtIns: BuiltInTool[];
  /** Holds the lease of every run executing in this process; ends runs whose process stopped. */
  worker: LeasedWorker<LeasedTask>;
  leaseMs: number;
}

/** The stored agent, secrets included (never answered as is); 404 for another account's id. */
export async function findAgent(context: AgentsContext, accountId: string, id: string): Promise<AgentRecord> {
  const agent = await context.store.getAgent(accountId, id);
  if (!agent) throw new NotFoundError('agent', id);
  return agent;
}

/** The agent's id and published version, for paths that do not read its workflow (404 as `findAgent`). */
export async function findAgentHead(context: AgentsContext, accountId: string, id: string): Promise<AgentHead> {
  const agent = await context.store.getAgentHead(accountId, id);
  if (!agent) throw new NotFoundError('agent', id);
  return agent;
}

/** An agent as answered to a caller: without its owner, card secrets masked (see `maskWorkflowSecrets`). */
export function toAgent({ account_id: _owner, ...agent }: AgentRecord): Agent {
  return { ...agent, workflow: maskWorkflowSecrets(agent.workflow) };
}

/** 409 for running (or serving the tools of) an agent that has no published version yet. */
export function notPublished(agentId: string): ConflictError {
  return new ConflictError(
    `Agent '${agentId}' has no published version yet; publish it (POST /v1/agents/${agentId}/publish) before running it.`,
    'agent_not_published',
  );
}
