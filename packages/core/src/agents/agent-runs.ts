import { NotFoundError } from '../errors';
import { type LeasedTask, type TaskContext, TaskStopped } from '../internal/leased-worker';
import type { AgentRunEvent } from './agent-objects';
import { runWorkflow } from './agent-runner';
import { type AgentsContext, findAgentHead, notPublished } from './agents-context';
import type { AgentHead, AgentsRepository } from './agents-repository';
import { checkVariables } from './render-variables';
import type { AgentRun, AgentRunCreateParams, AgentRunListParams, AgentRunsPage } from './wire/runs';
import type { StartNode, Workflow } from './workflow-types';

/** A run that passed its checks and is stored `in_progress`; iterate `events` (once) to execute it. */
export interface StartedAgentRun {
  run: AgentRun;
  events(signal?: AbortSignal): AsyncGenerator<AgentRunEvent>;
}

const DEFAULT_MAX_TOOL_ROUNDS = 10;

/** Why a run whose process stopped is failed rather than resumed. */
export const INTERRUPTED_RUN_ERROR =
  'The server executing this run stopped before it finished. Agent runs are not resumed: a Webhook call may have been under way, ' +
  'and repeating it could repeat its side effects. Start a new run.';

/**
 * `fathom.agents.runs`: runs of an agent's published version. A run executes in the process serving its
 * request, leased to it (heartbeat included). When that process dies, any process claims the run once
 * the lease ends and ends it `failed` (`INTERRUPTED_RUN_ERROR`): no run stays `in_progress`, and no
 * Webhook call is repeated.
 */
export class AgentRuns {
  readonly #context: AgentsContext;

  constructor(context: AgentsContext) {
    this.#context = context;
  }

  /** Runs to the end and answers the stored run with its steps (`params.stream` is not read: see `stream`). */
  async create(accountId: string, agentId: string, params: AgentRunCreateParams, signal?: AbortSignal): Promise<AgentRun> {
    const started = await this.stream(accountId, agentId, { ...params, stream: false });
    for await (const _event of started.events(signal)) {
      // The events are stored as steps; the answer is read back below.
    }
    return this.retrieve(accountId, agentId, started.run.id);
  }

  /**
   * Checks a run request against the published version (409 when there is none, 400 naming missing
   * required variables), stores the run leased to this process and returns it with its events: iterating
   * them executes the run (`run.started` … `run.completed` or `run.failed`).
   */
  async stream(accountId: string, agentId: string, params: AgentRunCreateParams): Promise<StartedAgentRun> {
    const { store, worker, leaseMs } = this.#context;
    const agent = await findAgentHead(this.#context, accountId, agentId);
    if (agent.version === null) throw notPublished(agentId);
    const variables = params.variables ?? {};
    const workflow = await store.publishedWorkflow(agentId, agent.version);
    if (!workflow) throw new NotFoundError('agent version', String(agent.version));
    checkVariables(workflow.nodes.find((node): node is StartNode => node.type === 'start')!, variables);
    const run = await store.createRun(agent, agent.version, params.message, variables, {
      owner: worker.owner,
      until: Date.now() + leaseMs,
    });
    let consumed = false;
    const events = (signal?: AbortSignal): AsyncGenerator<AgentRunEvent> => {
      if (consumed) throw new Error('The events of a run can be read only once.');
      consumed = true;
      return this.#execute(agent, run, workflow, params, variables, signal);
    };
    return { run, events };
  }

  async retrieve(accountId: string, agentId: string, runId: string): Promise<AgentRun> {
    await findAgentHead(this.#context, accountId, agentId);
    const run = await this.#context.store.getRun(accountId, agentId, runId);
    if (!run) throw new NotFoundError('agent run', runId);
    return run;
  }

  /** Runs of an agent (without steps), newest first; pages with `after`/`before` (run ids). */
  async list(accountId: string, agentId: string, query: AgentRunListParams = {}): Promise<AgentRunsPage> {
    await findAgentHead(this.#context, accountId, agentId);
    return this.#context.store.listRuns(agentId, query);
  }

  /**
   * Executes a started run as this process's leased work: the heartbeat keeps the lease while events
   * are read; a shutdown, a lost lease or the caller's signal aborts it. Steps and the end are written
   * only while the lease is held.
   */
  async *#execute(
    agent: AgentHead,
    run: AgentRun,
    workflow: Workflow,
    params: AgentRunCreateParams,
    variables: Record<string, unknown>,
    outerSignal?: AbortSignal,
  ): AsyncGenerator<AgentRunEvent> {
    const { options, store, worker, builtIns } = this.#context;
    const owner = worker.owner;
    const controller = new AbortController();
    const abort = () => controller.abort(outerSignal?.reason);
    outerSignal?.addEventListener('abort', abort, { once: true });
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const adopted = worker.adopt({ id: run.id, attempts: 1 }, (_task, context) => {
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
        message: params.message,
        variables,
        stream: params.stream === true,
        signal: controller.signal,
        chat: options.chat,
        webhooks: options.webhooks,
        builtIns,
        maxToolRounds: options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
        log: options.log,
        record: async (step) => {
          if (!(await store.addStep(run.id, owner, step))) throw new Error('This run was taken over by another server process.');
        },
      })) {
        if (event.type === 'run.completed') await store.finishRun(run.id, owner, { status: 'completed', output: event.output });
        if (event.type === 'run.failed') await store.finishRun(run.id, owner, { status: 'failed', error: event.error });
        ended = event.type === 'run.completed' || event.type === 'run.failed';
        yield event;
      }
    } finally {
      if (!ended) {
        const reason = controller.signal.reason ?? outerSignal?.reason;
        await store.finishRun(run.id, owner, { status: 'failed', error: abortMessage(reason) }).catch((error: Error) => {
          options.log.warn(`agents: could not end run ${run.id}: ${error.message}`);
        });
      }
      outerSignal?.removeEventListener('abort', abort);
      finish();
    }
  }
}

/** A run claimed from the queue: its process stopped (or gave it back at shutdown), so it ends failed. */
export async function failInterruptedRun(
  store: AgentsRepository,
  log: AgentsContext['options']['log'],
  task: LeasedTask,
  context: TaskContext,
): Promise<void> {
  if (await store.finishRun(task.id, context.owner, { status: 'failed', error: INTERRUPTED_RUN_ERROR })) {
    log.warn(`agents: run ${task.id} was interrupted by a stopped server and is marked failed`);
  }
}

/** The error a run ends with when it is stopped before its end. */
function abortMessage(reason: unknown): string {
  if (reason instanceof TaskStopped) {
    return reason.reason === 'shutdown' ? 'The server is shutting down.' : 'This run was taken over by another server process.';
  }
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  return 'The run was cancelled (the client disconnected).';
}
