import { newId, nowSeconds } from '../internal/ids';
import type { Run, RunStep, StepDetails } from './types';

/** A new `in_progress` step of a run. */
export function newRunStep(run: Run, details: StepDetails): RunStep {
  return {
    id: newId('step_'),
    object: 'thread.run.step',
    created_at: nowSeconds(),
    run_id: run.id,
    assistant_id: run.assistant_id,
    thread_id: run.thread_id,
    type: details.type,
    status: 'in_progress',
    cancelled_at: null,
    completed_at: null,
    expired_at: null,
    failed_at: null,
    last_error: null,
    step_details: details,
    usage: null,
    metadata: {},
  };
}
