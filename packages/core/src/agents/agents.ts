import { InvalidRequestError, NotFoundError } from '../errors';
import { yieldToEventLoop } from '../internal/time-slices';
import { parseModelId } from '../models/model-id';
import { AgentRuns } from './agent-runs';
import { AgentVersions } from './agent-versions';
import { type AgentsContext, findAgent, findAgentHead, notPublished, toAgent } from './agents-context';
import { WorkflowTools } from './preview-tools';
import { type PublishedAgentTools, publishedAgentTools } from './published-tools';
import { checkWorkflow, validateWorkflow } from './validate-workflow';
import type { Agent, AgentCreateParams, AgentDeleted, AgentListParams, AgentsPage, AgentUpdateParams } from './wire/agents';
import { restoreWorkflowSecrets } from './workflow-secrets';
import type { Workflow } from './workflow-types';

/**
 * `fathom.agents`: workflows validated and saved as drafts, published as numbered versions (`.versions`),
 * run (only the published version: `.runs`), and the live tool preview of a workflow (`.tools`). Every
 * agent belongs to one account; another account's id answers 404 like a missing one.
 *
 * Workflows leave this class with their card secrets masked (`SECRET_MASK`); a workflow sent back
 * with the mask in place keeps the stored secret, so no reader ever gets a credential back in full.
 * The params are trusted to match their declarations (`AgentCreateParams`…: the HTTP routes validate
 * them); the rules a schema cannot say are checked here (`validateWorkflow`).
 */
export class Agents {
  readonly versions: AgentVersions;
  readonly runs: AgentRuns;
  readonly tools: WorkflowTools;
  readonly #context: AgentsContext;

  constructor(context: AgentsContext) {
    this.#context = context;
    this.versions = new AgentVersions(context);
    this.runs = new AgentRuns(context);
    this.tools = new WorkflowTools(
      context.options.webhooks,
      context.builtIns,
      context.options.mcp,
      async (accountId, id) => (await findAgent(context, accountId, id)).workflow,
    );
  }

  async create(accountId: string, params: AgentCreateParams): Promise<Agent> {
    // Parsing the body, validating, storing and answering each walk the whole workflow once: a turn of the
    // event loop between them keeps the largest allowed workflow from holding the server for long.
    await yieldToEventLoop();
    const workflow = validateWorkflow(restoreWorkflowSecrets(params.workflow, undefined));
    await yieldToEventLoop();
    const agent = await this.#context.store.createAgent(accountId, params.name, workflow);
    await yieldToEventLoop();
    return toAgent(agent);
  }

  async list(accountId: string, query: AgentListParams = {}): Promise<AgentsPage> {
    const page = await this.#context.store.listAgents(accountId, query);
    return { ...page, data: page.data.map(toAgent) };
  }

  async retrieve(accountId: string, id: string): Promise<Agent> {
    return toAgent(await findAgent(this.#context, accountId, id));
  }

  /**
   * Changes the draft (validated again); the published version is untouched until the next publish.
   * Masked secrets in the new workflow keep the draft's stored values.
   */
  async update(accountId: string, id: string, params: AgentUpdateParams): Promise<Agent> {
    const current = await findAgent(this.#context, accountId, id);
    await yieldToEventLoop();
    const workflow =
      params.workflow === undefined ? undefined : validateWorkflow(restoreWorkflowSecrets(params.workflow, current.workflow));
    await yieldToEventLoop();
    const agent = await this.#context.store.updateDraft(accountId, id, { name: params.name, workflow });
    if (!agent) throw new NotFoundError('agent', id);
    await yieldToEventLoop();
    return toAgent(agent);
  }

  async delete(accountId: string, id: string): Promise<AgentDeleted> {
    if (!(await this.#context.store.deleteAgent(accountId, id))) throw new NotFoundError('agent', id);
    return { id, object: 'agent.deleted', deleted: true };
  }

  /**
   * Snapshots the draft as the next published version. The stored draft is checked again, against the
   * workflow's declaration and its rules (it may have been saved by an older version), and every agent
   * node's model must name a configured vendor.
   */
  async publish(accountId: string, id: string): Promise<Agent> {
    const draft = await findAgent(this.#context, accountId, id);
    await yieldToEventLoop();
    const workflow = checkWorkflow(draft.workflow);
    this.#checkModels(workflow);
    await yieldToEventLoop();
    const { db } = this.#context.options;
    const version = await db.transaction((tx) => this.#context.store.in(tx).publish(accountId, id));
    if (version === undefined) throw new NotFoundError('agent', id);
    await yieldToEventLoop();
    return this.retrieve(accountId, id);
  }

  /**
   * The published version's start variables and Webhook routes as tools that run with the stored cards
   * (Fathom's MCP endpoint of one agent): 404 as `retrieve`, 409 `agent_not_published` before a publish.
   */
  async publishedTools(accountId: string, id: string): Promise<PublishedAgentTools> {
    const agent = await findAgentHead(this.#context, accountId, id);
    if (agent.version === null) throw notPublished(id);
    // One read: the stored version with its workflow as saved (card secrets included, used server-side only).
    const version = await this.#context.store.getVersion(id, agent.version);
    if (!version) throw new NotFoundError('agent version', String(agent.version));
    return publishedAgentTools({
      agent: { id, account_id: agent.account_id, name: version.name, version: agent.version },
      workflow: version.workflow,
      webhooks: this.#context.options.webhooks,
      mcp: this.#context.options.mcp,
      log: this.#context.options.log,
    });
  }

  /**
   * A draft may name a vendor the installation does not have yet; a published version may not:
   * every agent node's model must be `<vendor>/<model>` with a configured vendor (400 naming the node).
   */
  #checkModels(workflow: Workflow): void {
    const { chat } = this.#context.options;
    if (!chat.vendors) return;
    const vendors = chat.vendors();
    workflow.nodes.forEach((node, index) => {
      if (node.type !== 'agent') return;
      try {
        const model = chat.resolveModel ? chat.resolveModel(node.data.model) : node.data.model;
        parseModelId(model, vendors, `workflow.nodes[${index}].data.model`);
      } catch (error) {
        if (!(error instanceof InvalidRequestError)) throw error;
        throw new InvalidRequestError(`Agent node '${node.id}': ${error.message}`, error.param, 'model_not_found');
      }
    });
  }
}
