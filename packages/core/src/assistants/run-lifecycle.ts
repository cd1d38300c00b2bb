import { FathomError, UpstreamError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { ChatUsage } from '../models/types';
import { emitRun, emitStep, type RunContext } from './run-context';
import type { Run } from './types';

type Context = Pick<RunContext, 'deps' | 'run' | 'state' | 'accountId'>;

/** A failure that ends the run with this `last_error` (tool-round cap, bad model output...). */
export class RunFailure extends Error {
  constructor(
    message: string,
    readonly code: NonNullable<Run['last_error']>['code'] = 'server_error',
  ) {
    super(message);
  }
}

/** Saves the run (and its state) and emits `thread.run.<status>`. */
export function saveAndEmit(context: Context): void {
  context.deps.runs.save(context.run, context.state);
  emitRun(context);
}

export function markInProgress(context: Context): void {
  context.run.status = 'in_progress';
  context.run.started_at ??= nowSeconds();
  saveAndEmit(context);
}

export function addUsage(run: Run, usage: ChatUsage | undefined): void {
  if (!usage) return;
  const total = run.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
  run.usage = total;
}

export function completeRun(context: Context): void {
  context.run.status = 'completed';
  context.run.completed_at = nowSeconds();
  context.run.expires_at = null;
  context.run.required_action = null;
  context.run.usage ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  saveAndEmit(context);
}

/** Closes what the run left open (steps, in-progress messages) with the run's terminal status. */
function closeOpenWork(context: Context, stepStatus: 'failed' | 'cancelled' | 'expired', lastError: Run['last_error']): void {
  const now = nowSeconds();
  for (const step of context.deps.runs.openSteps(context.run.id)) {
    step.status = stepStatus;
    if (stepStatus === 'failed') {
      step.failed_at = now;
      step.last_error = lastError
        ? { code: lastError.code === 'rate_limit_exceeded' ? 'rate_limit_exceeded' : 'server_error', message: lastError.message }
        : null;
    } else if (stepStatus === 'cancelled') step.cancelled_at = now;
    else step.expired_at = now;
    context.deps.runs.saveStep(step);
    emitStep(context, stepStatus, step);
  }
  for (const message of context.deps.threads.allMessages(context.run.thread_id)) {
    if (message.run_id !== context.run.id || message.status !== 'in_progress') continue;
    message.status = 'incomplete';
    message.incomplete_at = now;
    message.incomplete_details = {
      reason: stepStatus === 'cancelled' ? 'run_cancelled' : stepStatus === 'expired' ? 'run_expired' : 'run_failed',
    };
    context.deps.threads.saveMessage(message);
    context.deps.events.emit(context.run.id, 'thread.message.incomplete', message);
  }
}

export function failRun(context: Context, lastError: NonNullable<Run['last_error']>): void {
  closeOpenWork(context, 'failed', lastError);
  context.run.status = 'failed';
  context.run.failed_at = nowSeconds();
  context.run.expires_at = null;
  context.run.last_error = lastError;
  context.run.required_action = null;
  saveAndEmit(context);
}

export function cancelRunNow(context: Context): void {
  closeOpenWork(context, 'cancelled', null);
  context.run.status = 'cancelled';
  context.run.cancelled_at = nowSeconds();
  context.run.expires_at = null;
  context.run.required_action = null;
  saveAndEmit(context);
}

export function expireRun(context: Context): void {
  closeOpenWork(context, 'expired', null);
  context.run.status = 'expired';
  context.run.required_action = null;
  saveAndEmit(context);
}

/** The run's `last_error` for an error thrown by the model call or a tool: the provider's message, 429 -> rate_limit_exceeded. */
export function toLastError(error: unknown): NonNullable<Run['last_error']> {
  if (error instanceof RunFailure) return { code: error.code, message: error.message };
  const status =
    error instanceof UpstreamError ? (error.statusCode ?? error.status) : error instanceof FathomError ? error.status : undefined;
  const code = status === 429 || (error as FathomError)?.code === 'rate_limit_exceeded' ? 'rate_limit_exceeded' : 'server_error';
  const message = error instanceof Error && error.message ? error.message : 'The run failed for an unknown reason.';
  return { code, message };
}
