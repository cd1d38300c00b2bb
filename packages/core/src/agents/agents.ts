import { ConflictError, InvalidRequestError, NotFoundError } from '../errors';
import { checkLength, FIELD_LIMITS } from '../internal/field-limits';
import { LeasedWorker, type LeasedTask, type TaskContext, TaskStopped } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import { yieldToEventLoop } from '../internal/time-slices';
import type { ListPage, ListQuery } from '../internal/pagination';
import { parseModelId } from '../models/model-id';
import type { AgentsOptions } from './agent-deps';
import type { AgentObject, AgentRunEvent, AgentRunObject, AgentVersionObject } from './agent-objects';
import { runWorkflow } from './agent-runner';
import { type AgentHead, type AgentRunSummary, type AgentsRepository, SqlAgentsRepository } from './agents-repository';
import { type BuiltInTool, builtInTools } from './built-in-tools';
import { previewWorkflowTools, type WorkflowToolsPreview } from './preview-tools';
import { type PublishedAgentTools, publishedAgentTools } from './published-tools';
import { checkVariables } from './render-variables';
import { validateWorkflow } from './validate-workflow';
import { checkWorkflowLimits } from './workflow-limits';
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

/** Why a run whose process stopped is failed rather than resumed. */
export const INTERRUPTED_RUN_ERROR =
  'The server executing this run stopped before it finished. Agent runs are not resumed: a Webhook call may have been under way, ' +
  'and repeating it could repeat its side effects. Start a new run.';

/**
 * The agent service: workflows validated and saved as drafts, published as numbered versions, and
 * run (only the published version) with their tools. Every agent belongs to one account.
 *
 * Workflows leave this class with their card secrets masked (`SECRET_MASK`); a workflow sent back
 * with the mask in place keeps the stored secret, so no reader ever gets a credential back in full.
 *
 * A run executes in the process serving its request, leased to it (heartbeat included). When that
 * process dies, any process claims the run once the lease ends and ends it `failed`
 * (`INTERRUPTED_RUN_ERROR`): no run stays `in_progress`, and no Webhook call is repeated.
 */
export class Agents {
  readonly #options: AgentsOptions;
  readonly #store: AgentsRepository;
  readonly #log: Logger;
  readonly #builtIns: BuiltInTool[];
  readonly #worker: LeasedWorker<LeasedTask>;
  readonly #leaseMs: number;

  constructor(options: AgentsOptions) {
    this.#options = options;
    this.#store = new SqlAgentsRepository(options.db);
    this.#log = options.log;
    this.#builtIns = builtInTools(options.chat, options.config.webSearch);
    this.#leaseMs = (options.config.leaseSeconds ?? 30) * 1000;
    const interrupted = (task: LeasedTask, context: TaskContext) => this.#failInterrupted(task, context);
    this.#worker = new LeasedWorker<LeasedTask>({
      name: 'agent runs',
      queue: this.#store.queue(),
      run: interrupted,
      exhausted: interrupted,
      leaseMs: this.#leaseMs,
      pollMs: options.pollMs ?? 1000,
      log: options.log,
    });
  }

  /** Starts ending runs whose process stopped (after a crash, or another node's) as failed. */
  start(): void {
    this.#worker.start();
  }

  /** Aborts runs still in progress here (they end failed) and waits for them. */
  close(): Promise<void> {
    return this.#worker.close();
  }

  async create(accountId: string, input: { name: string; workflow: unknown }): Promise<AgentObject> {
    checkLength(input?.name, 'name', FIELD_LIMITS.name);
    // The size limits come before the copy that puts secrets back, so an oversized workflow costs only its parse.
    checkWorkflowLimits(input.workflow);
    // Parsing the body, validating, storing and answering each walk the whole workflow once: a turn of the
    // event loop between them keeps the largest allowed workflow from holding the server for long.
    await yieldToEventLoop();
    const workflow = validateWorkflow(restoreWorkflowSecrets(input.workflow, undefined));
    await yieldToEventLoop();
    const agent = await this.#store.createAgent(accountId, input.name, workflow);
    await yieldToEventLoop();
    return masked(agent);
  }

  async list(accountId: string, query: ListQuery = {}): Promise<ListPage<AgentObject>> {
    const page = await this.#store.listAgents(accountId, query);
    return { ...page, data: page.data.map(masked) };
  }

  async get(accountId: string, id: string): Promise<AgentObject> {
    return masked(await this.#find(accountId, id));
  }

  /** The stored agent, secrets included (stays inside this class). */
  async #find(accountId: string, id: string): Promise<AgentObject> {
    const agent = await this.#store.getAgent(accountId, id);
    if (!agent) throw new NotFoundError('agent', id);
    return agent;
  }

  /** The agent's id and published version, for paths that do not read its workflow (404 as `#find`). */
  async #head(accountId: string, id: string): Promise<AgentHead> {
    const agent = await this.#store.getAgentHead(accountId, id);
    if (!agent) throw new NotFoundError('agent', id);
    return agent;
  }

  /**
   * Changes the draft (validated again); the published version is untouched until the next publish.
   * Masked secrets in the new workflow keep the draft's stored values.
   */
  async update(accountId: string, id: string, input: { name?: string; workflow?: unknown }): Promise<AgentObject> {
    checkLength(input?.name, 'name', FIELD_LIMITS.name);
    checkWorkflowLimits(input.workflow);
    const current = await this.#find(accountId, id);
    await yieldToEventLoop();
    const workflow = input.workflow === undefined ? undefined : validateWorkflow(restoreWorkflowSecrets(input.workflow, current.workflow));
    await yieldToEventLoop();
    const agent = await this.#store.updateDraft(accountId, id, { name: input.name, workflow });
    if (!agent) throw new NotFoundError('agent', id);
    await yieldToEventLoop();
    return masked(agent);
  }

  async delete(accountId: string, id: string): Promise<{ id: string; object: 'agent.deleted'; deleted: true }> {
    if (!(await this.#store.deleteAgent(accountId, id))) throw new NotFoundError('agent', id);
    return { id, object: 'agent.deleted', deleted: true };
  }

  /** The published versions of an agent, newest first; pages with `after`/`before` (version ids or numbers). */
  async listVersions(accountId: string, agentId: string, query: ListQuery = {}): Promise<ListPage<AgentVersionObject>> {
    await this.#head(accountId, agentId);
    return this.#store.listVersions(agentId, query);
  }

  /** One published version with its workflow (secrets masked). */
  async getVersion(accountId: string, agentId: string, version: number): Promise<AgentVersionObject & { workflow: Workflow }> {
    await this.#head(accountId, agentId);
    const found = Number.isInteger(version) ? await this.#store.getVersion(agentId, version) : undefined;
    if (!found) throw new NotFoundError('agent version', `${agentId}@${version}`);
    return { ...found, workflow: maskWorkflowSecrets(found.workflow) };
  }

  /**
   * The tools each agent node of a workflow (saved or not, finished or not) would give its model, and
   * whether the workflow would pass validation. Masked secrets are never compiled into definitions.
   */
  previewTools(workflow: unknown): Promise<WorkflowToolsPreview> {
    return previewWorkflowTools(workflow, this.#options.webhooks, this.#builtIns);
  }

  /**
   * The published version's start variables and Webhook routes as tools that run with the stored cards
   * (Fathom's MCP endpoint of one agent): 404 as `get`, 409 `agent_not_published` before a publish.
   */
  async publishedTools(accountId: string, id: string): Promise<PublishedAgentTools> {
    const agent = await this.#head(accountId, id);
    if (agent.version === null) throw notPublished(id);
    const version = await this.#store.getVersion(id, agent.version);
    if (!version) throw new NotFoundError('agent version', String(agent.version));
    return publishedAgentTools({
      agent: { id, account_id: agent.account_id, name: version.name, version: agent.version },
      workflow: version.workflow,
      webhooks: this.#options.webhooks,
      log: this.#log,
    });
  }

  /** Snapshots the draft as the next published version. */
  async publish(accountId: string, id: string): Promise<AgentObject> {
    const draft = await this.#find(accountId, id);
    await yieldToEventLoop();
    const workflow = validateWorkflow(draft.workflow);
    this.#checkModels(workflow);
    await yieldToEventLoop();
    const version = await this.#options.db.transaction((tx) => this.#store.in(tx).publish(accountId, id));
    if (version === undefined) throw new NotFoundError('agent', id);
    await yieldToEventLoop();
    return this.get(accountId, id);
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
   * required variables), stores the run leased to this process and returns it with its event stream.
   */
  async startRun(accountId: string, id: string, input: RunAgentInput): Promise<StartedRun> {
    const agent = await this.#head(accountId, id);
    if (agent.version === null) {
      throw new ConflictError(
        `Agent '${id}' has no published version yet; publish it (POST /v1/agents/${id}/publish) before running it.`,
        'agent_not_published',
      );
    }
    if (typeof input.message !== 'string') throw new InvalidRequestError("Missing required parameter: 'message'.", 'message');
    checkLength(input.message, 'message', FIELD_LIMITS.content);
    const variables = input.variables ?? {};
    const workflow = await this.#store.publishedWorkflow(id, agent.version);
    if (!workflow) throw new NotFoundError('agent version', String(agent.version));
    checkVariables(workflow.nodes.find((node): node is StartNode => node.type === 'start')!, variables);
    const run = await this.#store.createRun(agent, agent.version, input.message, variables, {
      owner: this.#worker.owner,
      until: Date.now() + this.#leaseMs,
    });
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
    const started = await this.startRun(accountId, id, { ...input, stream: false });
    for await (const _event of started.events(signal)) {
      // The events are stored as steps; the answer is read back below.
    }
    return this.getRun(accountId, id, started.run.id);
  }

  async getRun(accountId: string, agentId: string, runId: string): Promise<AgentRunObject> {
    await this.#head(accountId, agentId);
    const run = await this.#store.getRun(accountId, agentId, runId);
    if (!run) throw new NotFoundError('agent run', runId);
    return run;
  }

  /** Runs of an agent (without steps), newest first; pages with `after`/`before` (run ids). */
  async listRuns(accountId: string, agentId: string, query: ListQuery = {}): Promise<ListPage<AgentRunSummary>> {
    await this.#head(accountId, agentId);
    return this.#store.listRuns(agentId, query);
  }

  /**
   * Executes a started run as this process's leased work: the heartbeat keeps the lease while events
   * are read; a shutdown, a lost lease or the caller's signal aborts it. Steps and the end are written
   * only while the lease is held.
   */
  async *#execute(
    agent: AgentHead,
    run: AgentRunObject,
    workflow: Workflow,
    input: RunAgentInput,
    variables: Record<string, unknown>,
    outerSignal?: AbortSignal,
  ): AsyncGenerator<AgentRunEvent> {
    const owner = this.#worker.owner;
    const controller = new AbortController();
    const abort = () => controller.abort(outerSignal?.reason);
    outerSignal?.addEventListener('abort', abort, { once: true });
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const adopted = this.#worker.adopt({ id: run.id, attempts: 1 }, (_task, context) => {
      context.signal.addEventListener('abort', () => controller.abort(context.signal.reason), { once: true });
      return done;
    });
    if (!adopted) controller.abort(new TaskStopped('shutdown'));
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
        builtIns: this.#builtIns,
        maxToolRounds: this.#options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
        log: this.#log,
        record: async (step) => {
          if (!(await this.#store.addStep(run.id, owner, step))) throw new Error('This run was taken over by another server process.');
        },
      })) {
        if (event.type === 'run.completed') await this.#store.finishRun(run.id, owner, { status: 'completed', output: event.output });
        if (event.type === 'run.failed') await this.#store.finishRun(run.id, owner, { status: 'failed', error: event.error });
        ended = event.type === 'run.completed' || event.type === 'run.failed';
        yield event;
      }
    } finally {
      if (!ended) {
        const reason = controller.signal.reason ?? outerSignal?.reason;
        await this.#store.finishRun(run.id, owner, { status: 'failed', error: abortMessage(reason) }).catch((error: Error) => {
          this.#log.warn(`agents: could not end run ${run.id}: ${error.message}`);
        });
      }
      outerSignal?.removeEventListener('abort', abort);
      finish();
    }
  }

  /** A run claimed from the queue: its process stopped (or gave it back at shutdown), so it ends failed. */
  async #failInterrupted(task: LeasedTask, context: TaskContext): Promise<void> {
    if (await this.#store.finishRun(task.id, context.owner, { status: 'failed', error: INTERRUPTED_RUN_ERROR })) {
      this.#log.warn(`agents: run ${task.id} was interrupted by a stopped server and is marked failed`);
    }
  }
}

/** 409 for a run (or the tools of a run) of an agent never published. */
function notPublished(id: string): ConflictError {
  return new ConflictError(
    `Agent '${id}' has no published version yet; publish it (POST /v1/agents/${id}/publish) before running it.`,
    'agent_not_published',
  );
}

/** The error a run ends with when it is stopped before its end. */
function abortMessage(reason: unknown): string {
  if (reason instanceof TaskStopped) {
    return reason.reason === 'shutdown' ? 'The server is shutting down.' : 'This run was taken over by another server process.';
  }
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'The run was cancelled (the client disconnected).';
}
