import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import { emitRun, presentStep, type RunDeps } from './run-context';
import type { RunLease, StoredRun } from './runs-repository';
import type { Run, RunStatus } from './types';
import type { RunSubmitToolOutputsParams } from './wire/runs';

/** 400 for outputs submitted to a run that is not waiting for them. */
export function notAcceptingOutputs(status: RunStatus): InvalidRequestError {
  return new InvalidRequestError(`Runs in status '${status}' do not accept tool outputs.`, null, 'invalid_state');
}

/**
 * Reads `tool_outputs` of a submit against the run's pending calls: every output names a pending call,
 * and every pending call gets its output in this one submit (400 naming the field otherwise).
 * Answers output text by call id.
 */
export function readToolOutputs(run: Run, params: RunSubmitToolOutputsParams): Map<string, string> {
  const pending = run.required_action?.submit_tool_outputs.tool_calls ?? [];
  const byId = new Map<string, string>();
  for (const [index, { tool_call_id: callId, output }] of params.tool_outputs.entries()) {
    if (!pending.some((call) => call.id === callId)) {
      throw new InvalidRequestError(
        `Invalid 'tool_outputs[${index}].tool_call_id': no pending tool call has this id.`,
        `tool_outputs[${index}].tool_call_id`,
      );
    }
    byId.set(callId, output ?? '');
  }
  const missing = pending.filter((call) => !byId.has(call.id)).map((call) => call.id);
  if (missing.length) {
    throw new InvalidRequestError(
      `Missing tool outputs for tool_call_id ${missing.map((id) => `'${id}'`).join(', ')}: submit all outputs at once.`,
      'tool_outputs',
    );
  }
  return byId;
}

/**
 * Completes the paused `tool_calls` step with the outputs, adds them to the conversation, and moves the
 * run from `requires_action` to `queued`, leased to the submitting process, in one transaction. False
 * when the run left `requires_action` meanwhile (another submit, a cancel or an expiry won).
 */
export async function recordToolOutputs(deps: RunDeps, stored: StoredRun, outputs: Map<string, string>, lease: RunLease): Promise<boolean> {
  const { run, state } = stored;
  const pending = run.required_action?.submit_tool_outputs.tool_calls ?? [];
  const step = state.pendingStepId ? await deps.runs.stepById(state.pendingStepId) : undefined;
  if (step && step.step_details.type === 'tool_calls') {
    for (const call of step.step_details.tool_calls) {
      if (call.type === 'function' && outputs.has(call.id)) call.function.output = outputs.get(call.id)!;
    }
    step.status = 'completed';
    step.completed_at = nowSeconds();
  }
  for (const call of pending) state.transcript.push({ role: 'tool', tool_call_id: call.id, content: outputs.get(call.id)! });
  state.pendingStepId = undefined;
  run.required_action = null;
  run.status = 'queued';
  const resumed = await deps.db.transaction(async (tx) => {
    if (!(await deps.runs.in(tx).transition(run, state, ['requires_action'], lease))) return false;
    if (step) await deps.runs.in(tx).saveStep(step);
    return true;
  });
  if (!resumed) return false;
  if (step) deps.events.emit(run.id, 'thread.run.step.completed', presentStep(step, state.include ?? []));
  emitRun({ deps, run });
  return true;
}
