import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import type { ListPage, ListQuery } from '../internal/pagination';
import { checkLength, FIELD_LIMITS } from '../internal/field-limits';
import type { Logger } from '../internal/logger';
import { parseModelId } from '../models/model-id';
import type { AgentsOptions } from './agent-deps';
import type { AgentObject, AgentRunEvent, AgentRunObject } from './agent-objects';
import { runWorkflow } from './agent-runner';
import { AgentStore } from './agent-store';
import { AgentVersions, type AgentVersionObject } from './agent-versions';
import { builtInTools } from './built-in-tools';
import { previewWorkflowTools, type WorkflowToolsPreview } from './preview-tools';
import { checkVariables } from './render-variables';
import { validateWorkflow } from './validate-workflow';
import { maskWorkflowSecrets, restoreWorkflowSecrets } from './workflow-secrets';
import type { StartNode, Workflow } from './workflow-types';

/** Body of `POST /v1/agents/{id}/run`. */
export interface RunAgentInput {
  message: string;
  variables?: Record<string, unknown>;
  stream?: boolean;
}

/** A run that passed its checks and is stored `in_progress`; iterate `events` to execute it. */
export interface StartedRun {
  run: AgentRunObject;
  events(signal?: AbortSignal): AsyncGenerator<AgentRunEvent>;
}

const DEFAULT_MAX_TOOL_ROUNDS = 10;

/** An agent as answered to a caller: card secrets masked (see `maskWorkflowSecrets`). */
const masked = (agent: AgentObject): AgentObject => ({ ...agent, workflow: maskWorkflowSecrets(agent.workflow) });

/**
 * The agent service: workflows validated and saved as drafts, published as numbered versions, and
 * run (only the published version) with their tools. Every agent belongs to one account.
 *
 * Workflows leave this class with their card secrets masked (`SECRET_MASK`); a workflow sent back
 * with the mask in place keeps the stored secret, so no reader ever gets a credential back in full.
 */
export class Agents {
  readonly #options: AgentsOptions;
  readonly #store: AgentStore;
  readonly #versions: AgentVersions;
  readonly #log: Logger;
  readonly #active = new Set<{ controller: AbortController; done: Promise<void> }>();

  constructor(options: AgentsOptions) {
    this.#options = options;
    this.#store = new AgentStore(options.db);
    this.#versions = new AgentVersions(options.db);
    this.#log = options.log;
  }

  /** Runs left `in_progress` by a previous process are marked failed. */
  start(): void {
    const failed = this.#store.failInterruptedRuns('The server restarted while this run was in progress.');
    if (failed > 0) this.#log.warn(`agents: marked ${failed} interrupted run(s) as failed`);
  }

  /** Aborts runs still in progress (they end failed) and waits for them. */
  async close(): Promise<void> {
    for (const entry of this.#active) entry.controller.abort(new Error('The server is shutting down.'));
    await Promise.all([...this.#active].map((entry) => entry.done));
  }

  create(accountId: string, input: { name: string; workflow: unknown }): AgentObject {
    checkLength(input?.name, 'name', FIELD_LIMITS.name);
    const workflow = validateWorkflow(restoreWorkflowSecrets(input.workflow, undefined));
    return masked(this.#store.createAgent(accountId, input.name, workflow));
  }

  list(accountId: string, query: ListQuery = {}): ListPage<AgentObject> {
    const page = this.#store.listAgents(accountId, query);
    return { ...page, data: page.data.map(masked) };
  }

  get(accountId: string, id: string): AgentObject {
    return masked(this.#find(accountId, id));
  }

  /** The stored agent, secrets included (stays inside this class). */
  #find(accountId: string, id: string): AgentObject {
    const agent = this.#store.getAgent(accountId, id);
    if (!agent) throw new NotFoundError('agent', id);
    return agent;
  }

  /**
   * Changes the draft (validated again); the published version is untouched until the next publish.
   * Masked secrets in the new workflow keep the draft's stored values.
   */
  update(accountId: string, id: string, input: { name?: string; workflow?: unknown }): AgentObject {
    checkLength(input?.name, 'name', FIELD_LIMITS.name);
    const current = this.#find(accountId, id);
    const workflow = input.workflow === undefined ? undefined : validateWorkflow(restoreWorkflowSecrets(input.workflow, current.workflow));
    return masked(this.#store.updateDraft(accountId, id, { name: input.name, workflow })!);
  }

  /** The published versions of an agent, newest first. */
  listVersions(accountId: string, id: string): AgentVersionObject[] {
    this.#find(accountId, id);
    return this.#versions.list(id);
  }

  /** One published version with its workflow (secrets masked). */
  getVersion(accountId: string, id: string, version: number): AgentVersionObject & { workflow: Workflow } {
    this.#find(accountId, id);
    const found = Number.isInteger(version) ? this.#versions.get(id, version) : undefined;
    if (!found) throw new NotFoundError('agent version', `${id}@${version}`);
    return { ...found, workflow: maskWorkflowSecrets(found.workflow) };
  }

  /**
   * The tools each agent node of a workflow (saved or not, finished or not) would give its model, and
   * whether the workflow would pass validation. Masked secrets are never compiled into definitions.
   */
  previewTools(workflow: unknown): WorkflowToolsPreview {
    return previewWorkflowTools(workflow, this.#options.webhooks, builtInTools(this.#options.chat, this.#options.config.env));
  }

  delete(accountId: string, id: string): { id: string; object: 'agent.deleted'; deleted: true } {
    if (!this.#store.deleteAgent(accountId, id)) throw new NotFoundError('agent', id);
    return { id, object: 'agent.deleted', deleted: true };
  }

  /** Snapshots the draft as the next published version. */
  publish(accountId: string, id: string): AgentObject {
    const workflow = validateWorkflow(this.#find(accountId, id).workflow);
    this.#checkModels(workflow);
    return masked(this.#store.publish(accountId, id)!);
  }

  /**
   * A draft may name a vendor the installation does not have yet; a published version may not:
   * every agent node's model must be `<vendor>/<model>` with a configured vendor (400 naming the node).
   */
  #checkModels(workflow: Workflow): void {
    const { chat } = this.#options;
    if (!chat.vendors) return;
    const vendors = chat.vendors();
    workflow.nodes.forEach((node, index) => {
      if (node.type !== 'agent') return;
      try {
        const model = typeof node.data.model === 'string' && chat.resolveModel ? chat.resolveModel(node.data.model) : node.data.model;
        parseModelId(model, vendors, `workflow.nodes[${index}].data.model`);
      } catch (error) {
        if (!(error instanceof InvalidRequestError)) throw error;
        throw new InvalidRequestError(`Agent node '${node.id}': ${error.message}`, error.param, 'model_not_found');
      }
    });
  }

  /**
   * Checks a run request against the published version (409 when there is none, 400 naming missing
   * required variables), stores the run and returns it with its event stream.
   */
  startRun(accountId: string, id: string, input: RunAgentInput): StartedRun {
    const agent = this.#find(accountId, id);
    if (agent.version === null) {
      throw new ConflictError(
        `Agent '${id}' has no published version yet; publish it (POST /v1/agents/${id}/publish) before running it.`,
        'agent_not_published',
      );
    }
    if (typeof input.message !== 'string') throw new InvalidRequestError("Missing required parameter: 'message'.", 'message');
    checkLength(input.message, 'message', FIELD_LIMITS.content);
    const variables = input.variables ?? {};
    const workflow = this.#store.publishedWorkflow(id, agent.version);
    checkVariables(workflow.nodes.find((node): node is StartNode => node.type === 'start')!, variables);
    const run = this.#store.createRun(agent, agent.version, input.message, variables);
    let consumed = false;
    const events = (signal?: AbortSignal): AsyncGenerator<AgentRunEvent> => {
      if (consumed) throw new Error('The events of a run can be read only once.');
      consumed = true;
      return this.#execute(agent, run, workflow, input, variables, signal);
    };
    return { run, events };
  }

  /** Runs to the end and answers the stored run with its steps. */
  async run(accountId: string, id: string, input: RunAgentInput, signal?: AbortSignal): Promise<AgentRunObject> {
    const started = this.startRun(accountId, id, { ...input, stream: false });
    for await (const _event of started.events(signal)) {
      // The events are stored as steps; the answer is read back below.
    }
    return this.getRun(accountId, id, started.run.id);
  }

  getRun(accountId: string, agentId: string, runId: string): AgentRunObject {
    this.#find(accountId, agentId);
    const run = this.#store.getRun(accountId, agentId, runId);
    if (!run) throw new NotFoundError('agent run', runId);
    return run;
  }

  listRuns(accountId: string, agentId: string, query: ListQuery = {}): ListPage<Omit<AgentRunObject, 'steps'>> {
    this.#find(accountId, agentId);
    return this.#store.listRuns(accountId, agentId, query);
  }

  async *#execute(
    agent: AgentObject,
    run: AgentRunObject,
    workflow: Workflow,
    input: RunAgentInput,
    variables: Record<string, unknown>,
    outerSignal?: AbortSignal,
  ): AsyncGenerator<AgentRunEvent> {
    const controller = new AbortController();
    const abort = () => controller.abort(outerSignal?.reason);
    outerSignal?.addEventListener('abort', abort, { once: true });
    let finish!: () => void;
    const entry = { controller, done: new Promise<void>((resolve) => (finish = resolve)) };
    this.#active.add(entry);
    let ended = false;
    try {
      for await (const event of runWorkflow({
        agentId: agent.id,
        runId: run.id,
        accountId: agent.account_id,
        version: run.version,
        workflow,
        message: input.message,
        variables,
        stream: input.stream === true,
        signal: controller.signal,
        chat: this.#options.chat,
        webhooks: this.#options.webhooks,
        builtIns: builtInTools(this.#options.chat, this.#options.config.env),
        maxToolRounds: this.#options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
        log: this.#log,
        record: (step) => this.#store.addStep(run.id, step),
      })) {
        if (event.type === 'run.completed') this.#store.finishRun(run.id, { status: 'completed', output: event.output });
        if (event.type === 'run.failed') this.#store.finishRun(run.id, { status: 'failed', error: event.error });
        ended = event.type === 'run.completed' || event.type === 'run.failed';
        yield event;
      }
    } finally {
      if (!ended) {
        const reason = controller.signal.reason ?? outerSignal?.reason;
        const message =
          reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'The run was cancelled (the client disconnected).';
        this.#store.finishRun(run.id, { status: 'failed', error: message });
      }
      outerSignal?.removeEventListener('abort', abort);
      this.#active.delete(entry);
      finish();
    }
  }
}
