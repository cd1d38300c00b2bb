import { NotFoundError } from '../errors';
import { type AgentsContext, findAgentHead } from './agents-context';
import type { AgentVersionListParams, AgentVersionsPage, AgentVersionWithWorkflow } from './wire/agents';
import { maskWorkflowSecrets } from './workflow-secrets';

/** `fathom.agents.versions`: the published snapshots of an agent, numbered from 1. */
export class AgentVersions {
  readonly #context: AgentsContext;

  constructor(context: AgentsContext) {
    this.#context = context;
  }

  /** The published versions of an agent, newest first; pages with `after`/`before` (version ids or numbers). */
  async list(accountId: string, agentId: string, query: AgentVersionListParams = {}): Promise<AgentVersionsPage> {
    await findAgentHead(this.#context, accountId, agentId);
    return this.#context.store.listVersions(agentId, query);
  }

  /** One published version with its workflow (card secrets masked). */
  async retrieve(accountId: string, agentId: string, version: number): Promise<AgentVersionWithWorkflow> {
    await findAgentHead(this.#context, accountId, agentId);
    const found = Number.isInteger(version) ? await this.#context.store.getVersion(agentId, version) : undefined;
    if (!found) throw new NotFoundError('agent version', `${agentId}@${version}`);
    return { ...found, workflow: maskWorkflowSecrets(found.workflow) };
  }
}
