import { InvalidRequestError, NotFoundError } from '../errors';
import { nowSeconds } from '../internal/ids';
import { type AssistantsContext, requireThread } from './assistants-context';
import { type RunRequestOptions, type StartedRun, startRun, withDone } from './create-run';
import { checkContentTotal, checkModel } from './normalize-input';
import { emitRun } from './run-context';
import { cancelRunNow, expireRun } from './run-lifecycle';
import { RunSteps } from './run-steps';
import { notAcceptingOutputs, readToolOutputs, recordToolOutputs } from './tool-outputs';
import type { AssistantStreamEvent } from './types';
import type { Run, RunCreateParams, RunListParams, RunsPage, RunSubmitToolOutputsParams, RunUpdateParams } from './wire/runs';

/**
 * `fathom.threads.runs`: runs of a thread (OpenAI's `beta.threads.runs`) and their `steps`. A run is
 * created `queued` and executes in the background, leased to the process that created it (another
 * process takes it over if this one stops); the streaming variants answer OpenAI's assistant events.
 * One run at a time per thread.
 */
export class ThreadRuns {
  readonly steps: RunSteps;
  readonly #context: AssistantsContext;

  constructor(context: AssistantsContext) {
    this.#context = context;
    this.steps = new RunSteps(context, this);
  }

  /** Creates a run on a thread and executes it in the background; answers the queued run. */
  async create(accountId: string, threadId: string, params: RunCreateParams, options: RunRequestOptions = {}): Promise<Run> {
    return (await this.#start(accountId, threadId, params, options, false)).run;
  }

  /** Like `create`, as OpenAI's event stream: `thread.run.created` … `thread.run.completed` (or `requires_action`…), then `done`. */
  async stream(
    accountId: string,
    threadId: string,
    params: RunCreateParams,
    options: RunRequestOptions = {},
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    return (await this.#start(accountId, threadId, params, options, true)).events!;
  }

  /** A run as stored; one paused in `requires_action` past its `expires_at` becomes `expired` now. */
  async retrieve(accountId: string, threadId: string, runId: string): Promise<Run> {
    const { deps } = this.#context;
    const run = await deps.runs.get(accountId, threadId, runId);
    if (!run) throw new NotFoundError('run', runId);
    if (run.status === 'requires_action' && run.expires_at !== null && run.expires_at < nowSeconds()) {
      const stored = (await deps.runs.byId(runId))!;
      if (await expireRun({ deps, run: stored.run, state: stored.state, accountId })) return stored.run;
      return (await deps.runs.get(accountId, threadId, runId)) ?? run;
    }
    return run;
  }

  async update(accountId: string, threadId: string, runId: string, params: RunUpdateParams): Promise<Run> {
    await this.retrieve(accountId, threadId, runId);
    if (params.metadata !== undefined) await this.#context.deps.runs.setMetadata(runId, params.metadata ?? {});
    return this.retrieve(accountId, threadId, runId);
  }

  async list(accountId: string, threadId: string, query: RunListParams = {}): Promise<RunsPage> {
    await requireThread(this.#context, accountId, threadId);
    return this.#context.deps.runs.list(accountId, threadId, query);
  }

  /**
   * Cancels a run: one waiting for tool outputs at once; an executing one answers `cancelling` and its
   * executor ends it `cancelled` (at once when it runs in this process, else at its next step).
   */
  async cancel(accountId: string, threadId: string, runId: string): Promise<Run> {
    const { deps, worker } = this.#context;
    const run = await this.retrieve(accountId, threadId, runId);
    if ((run.status === 'queued' || run.status === 'in_progress') && (await deps.runs.requestCancel(runId))) {
      run.status = 'cancelling';
      emitRun({ deps, run });
      worker.cancel(runId);
      return run;
    }
    if (run.status === 'requires_action') {
      const stored = (await deps.runs.byId(runId))!;
      if (await cancelRunNow({ deps, run: stored.run, state: stored.state, accountId })) return stored.run;
    }
    const now = await this.retrieve(accountId, threadId, runId);
    if (now.status === 'cancelling') return now;
    throw new InvalidRequestError(`Cannot cancel run with status '${now.status}'.`, null, 'invalid_state');
  }

  /** Completes the paused `tool_calls` step with the outputs (one for every pending call) and resumes the run. */
  async submitToolOutputs(accountId: string, threadId: string, runId: string, params: RunSubmitToolOutputsParams): Promise<Run> {
    return (await this.#resume(accountId, threadId, runId, params, false)).run;
  }

  /** Like `submitToolOutputs`, as an event stream of the rest of the run. */
  async submitToolOutputsStream(
    accountId: string,
    threadId: string,
    runId: string,
    params: RunSubmitToolOutputsParams,
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    return (await this.#resume(accountId, threadId, runId, params, true)).events!;
  }

  #start(accountId: string, threadId: string, params: RunCreateParams, options: RunRequestOptions, stream: boolean): Promise<StartedRun> {
    for (const [index, message] of (params.additional_messages ?? []).entries()) {
      checkContentTotal(message.content, `additional_messages[${index}].content`);
    }
    checkModel(this.#context.deps.chat, params.model);
    return startRun(this.#context, accountId, threadId, params, options, stream);
  }

  async #resume(
    accountId: string,
    threadId: string,
    runId: string,
    params: RunSubmitToolOutputsParams,
    stream: boolean,
  ): Promise<StartedRun> {
    const { deps, worker } = this.#context;
    const run = await this.retrieve(accountId, threadId, runId);
    if (run.status !== 'requires_action') throw notAcceptingOutputs(run.status);
    const outputs = readToolOutputs(run, params);
    const stored = (await deps.runs.byId(runId))!;
    const events = stream ? deps.events.watch(runId) : undefined;
    if (!(await recordToolOutputs(deps, stored, outputs, worker.lease()))) {
      events?.close();
      throw notAcceptingOutputs((await this.retrieve(accountId, threadId, runId)).status);
    }
    worker.execute(runId);
    return { run: stored.run, events: events && withDone(events) };
  }
}
