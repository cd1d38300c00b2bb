import { FathomError, UpstreamError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { ChatUsage } from '../models/types';
import type { SqlClient } from '../storage';
import { emitRun, emitStep, type RunContext } from './run-context';
import type { Run, RunStatus } from './types';

/** A run as the lifecycle functions need it; `owner` is absent for runs nobody executes (requires_action). */
type Context = Pick<RunContext, 'deps' | 'run' | 'state' | 'accountId'> & { owner?: string };

const EXECUTING: readonly RunStatus[] = ['queued', 'in_progress'];

/** A failure that ends the run with this `last_error` (tool-round cap, bad model output...). */
export class RunFailure extends Error {
  constructor(
    message: string,
    readonly code: NonNullable<Run['last_error']>['code'] = 'server_error',
  ) {
    super(message);
  }
}

/**
 * This process may no longer write the run: someone asked to cancel it (`cancelled`: the executor ends
 * it `cancelled`), or the lease went to another process or the run was deleted (the executor stops
 * without writing anything).
 */
export class RunInterrupted extends Error {
  constructor(readonly cancelled: boolean) {
    super(cancelled ? 'run cancelled' : 'run lease lost');
  }
}

/** Why an owned write matched nothing: a cancel request (we still hold the lease) or a lost lease. */
async function interruption(context: Context, tx: SqlClient): Promise<RunInterrupted> {
  const stored = await context.deps.runs.in(tx).byId(context.run.id);
  return new RunInterrupted(stored?.leaseOwner === context.owner && stored?.run.status === 'cancelling');
}

/**
 * Writes the run and state (still queued or in progress) and `writes` in one transaction, while this
 * process holds the lease; throws `RunInterrupted` otherwise (nothing is written then).
 */
export async function saveProgress(context: RunContext, writes?: RunWrites): Promise<void> {
  const emits = await context.deps.db.transaction(async (tx) => {
    if (!(await context.deps.runs.in(tx).saveOwned(context.run, context.state, context.owner, EXECUTING))) {
      throw await interruption(context, tx);
    }
    return (await writes?.(tx)) ?? [];
  });
  for (const emit of emits) emit();
}

/** Runs `writes` in one transaction only while this process holds the run's lease (the row is locked meanwhile). */
export async function whileHolding(context: RunContext, writes: RunWrites): Promise<void> {
  const emits = await context.deps.db.transaction(async (tx) => {
    if (!(await context.deps.runs.in(tx).holds(context.run.id, context.owner))) throw await interruption(context, tx);
    return (await writes(tx)) ?? [];
  });
  for (const emit of emits) emit();
}

export async function markInProgress(context: RunContext): Promise<void> {
  context.run.status = 'in_progress';
  context.run.started_at ??= nowSeconds();
  await saveProgress(context);
  emitRun(context);
}

export function addUsage(run: Run, usage: ChatUsage | undefined): void {
  if (!usage) return;
  const total = run.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
  run.usage = total;
}

interface Ending {
  /** Statuses the stored run may be in for this ending to apply. */
  from: readonly RunStatus[];
  /** Closes the run's open steps and in-progress messages with this status. */
  close?: { stepStatus: 'failed' | 'cancelled' | 'expired'; lastError: Run['last_error'] };
  /** Other writes of the same transaction (the last message and step of a completed run); may answer events to emit before the run's. */
  writes?: RunWrites;
}

/** Writes joining a run's transaction; the functions answered are emitted (in order) once it committed. */
export type RunWrites = (tx: SqlClient) => Promise<Array<() => void> | undefined>;

/**
 * Writes a status that ends the run's execution (finished, or paused for tool outputs) with everything
 * that goes with it, in one transaction, then emits the events. An executing run is written only by its
 * lease owner (else `RunInterrupted`); a run nobody executes only from the `from` statuses (else false).
 */
async function endRun(context: Context, ending: Ending): Promise<boolean> {
  const { deps, run, state, owner } = context;
  const emits: Array<() => void> = [];
  const ended = await deps.db.transaction(async (tx) => {
    const runs = deps.runs.in(tx);
    if (owner !== undefined) {
      if (!(await runs.saveOwned(run, state, owner, ending.from, true))) throw await interruption(context, tx);
    } else if (!(await runs.transition(run, state, ending.from))) {
      return false;
    }
    emits.push(...((await ending.writes?.(tx)) ?? []));
    if (ending.close) emits.push(...(await closeOpenWork(context, tx, ending.close.stepStatus, ending.close.lastError)));
    return true;
  });
  if (ended) {
    for (const emit of emits) emit();
    emitRun(context);
  }
  return ended;
}

export async function completeRun(context: RunContext, writes?: RunWrites): Promise<void> {
  context.run.status = 'completed';
  context.run.completed_at = nowSeconds();
  context.run.expires_at = null;
  context.run.required_action = null;
  context.run.usage ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  await endRun(context, { from: EXECUTING, writes });
}

/** Ends the run `incomplete` (a token budget of the run was reached); the answer so far stays. */
export async function incompleteRun(
  context: RunContext,
  reason: 'max_completion_tokens' | 'max_prompt_tokens',
  writes?: RunWrites,
): Promise<void> {
  context.run.status = 'incomplete';
  context.run.incomplete_details = { reason };
  context.run.expires_at = null;
  context.run.required_action = null;
  context.run.usage ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  await endRun(context, { from: EXECUTING, writes });
}

/** Pauses the run in `requires_action` (function calls for the client) and gives its lease up. */
export async function pauseRun(context: RunContext, writes: RunWrites): Promise<void> {
  context.run.status = 'requires_action';
  await endRun(context, { from: EXECUTING, writes });
}

export async function failRun(context: Context, lastError: NonNullable<Run['last_error']>): Promise<void> {
  context.run.status = 'failed';
  context.run.failed_at = nowSeconds();
  context.run.expires_at = null;
  context.run.last_error = lastError;
  context.run.required_action = null;
  await endRun(context, { from: EXECUTING, close: { stepStatus: 'failed', lastError } });
}

/** Cancels the run: by its executor (from queued, in_progress or cancelling), or a paused run (from requires_action). */
export async function cancelRunNow(context: Context): Promise<boolean> {
  context.run.status = 'cancelled';
  context.run.cancelled_at = nowSeconds();
  context.run.failed_at = null;
  context.run.last_error = null;
  context.run.expires_at = null;
  context.run.required_action = null;
  const from: readonly RunStatus[] = context.owner !== undefined ? ['queued', 'in_progress', 'cancelling'] : ['requires_action'];
  return endRun(context, { from, close: { stepStatus: 'cancelled', lastError: null } });
}

/** Expires the run: one paused past `expires_at` (no owner), or one taken over after it (its executor). */
export async function expireRun(context: Context): Promise<boolean> {
  context.run.status = 'expired';
  context.run.required_action = null;
  const from: readonly RunStatus[] = context.owner !== undefined ? EXECUTING : ['requires_action'];
  return endRun(context, { from, close: { stepStatus: 'expired', lastError: null } });
}

/**
 * Closes what the run left open (steps, in-progress messages) with the run's terminal status, inside
 * the ending's transaction; answers the events to emit once it committed.
 */
async function closeOpenWork(
  context: Context,
  tx: SqlClient,
  stepStatus: 'failed' | 'cancelled' | 'expired',
  lastError: Run['last_error'],
): Promise<Array<() => void>> {
  const { deps, run } = context;
  const emits: Array<() => void> = [];
  const now = nowSeconds();
  for (const step of await deps.runs.in(tx).openSteps(run.id)) {
    step.status = stepStatus;
    if (stepStatus === 'failed') {
      step.failed_at = now;
      step.last_error = lastError
        ? { code: lastError.code === 'rate_limit_exceeded' ? 'rate_limit_exceeded' : 'server_error', message: lastError.message }
        : null;
    } else if (stepStatus === 'cancelled') step.cancelled_at = now;
    else step.expired_at = now;
    await deps.runs.in(tx).saveStep(step);
    emits.push(() => emitStep(context, stepStatus, step));
  }
  for (const message of await deps.threads.in(tx).runMessages(run.id)) {
    if (message.status !== 'in_progress') continue;
    message.status = 'incomplete';
    message.incomplete_at = now;
    message.incomplete_details = {
      reason: stepStatus === 'cancelled' ? 'run_cancelled' : stepStatus === 'expired' ? 'run_expired' : 'run_failed',
    };
    await deps.threads.in(tx).saveMessage(message);
    emits.push(() => deps.events.emit(run.id, 'thread.message.incomplete', message));
  }
  return emits;
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
