import { NotFoundError } from '../errors';
import type { AssistantsContext } from './assistants-context';
import { includeOf } from './create-run';
import { presentStep } from './run-context';
import type { Run } from './types';
import type { RunStep, RunStepsPage, StepListParams, StepRetrieveParams } from './wire/run-steps';

/**
 * `fathom.threads.runs.steps`: the steps of a run (OpenAI's `beta.threads.runs.steps`). A `file_search`
 * call shows its passages' text only with `include[]=step_details.tool_calls[*].file_search.results[*].content`.
 */
export class RunSteps {
  readonly #context: AssistantsContext;
  readonly #runs: { retrieve(accountId: string, threadId: string, runId: string): Promise<Run> };

  constructor(context: AssistantsContext, runs: { retrieve(accountId: string, threadId: string, runId: string): Promise<Run> }) {
    this.#context = context;
    this.#runs = runs;
  }

  async retrieve(accountId: string, threadId: string, runId: string, stepId: string, query: StepRetrieveParams = {}): Promise<RunStep> {
    const step = await this.#context.deps.runs.getStep(accountId, threadId, runId, stepId);
    if (!step) throw new NotFoundError('run step', stepId);
    return presentStep(step, includeOf(query));
  }

  async list(accountId: string, threadId: string, runId: string, query: StepListParams = {}): Promise<RunStepsPage> {
    await this.#runs.retrieve(accountId, threadId, runId);
    const page = await this.#context.deps.runs.listSteps(runId, query);
    const include = includeOf(query);
    return { ...page, data: page.data.map((step) => presentStep(step, include)) };
  }
}
