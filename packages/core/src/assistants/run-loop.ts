import type { RunContext, RunDeps } from './run-context';
import { addUsage, cancelRunNow, completeRun, failRun, markInProgress, toLastError } from './run-lifecycle';
import { runModelTurn } from './model-turn';
import { runToolRound } from './tool-round';

/** Why a run's execution was aborted: the client cancelled it, or the process is stopping. */
export type AbortReason = 'cancel' | 'shutdown';

/**
 * Executes a run from where it stands (queued, or resumed after tool outputs) until it completes,
 * pauses for function outputs, is cancelled, or fails. Each step saves the run before the next one, so
 * cancellation is honoured between steps (and aborts an in-flight model call). A shutdown abort writes
 * nothing: the next start marks the run failed, exactly as after a crash.
 */
export async function executeRun(deps: RunDeps, runId: string, signal: AbortSignal): Promise<void> {
  const stored = deps.runs.byId(runId);
  if (!stored) return;
  const context: RunContext = { deps, accountId: stored.accountId, run: stored.run, state: stored.state, signal };
  // Cancelled before the loop got to start.
  if (stored.run.status === 'cancelling') return cancelRunNow(context);
  if (stored.run.status !== 'queued' && stored.run.status !== 'in_progress') return;
  try {
    markInProgress(context);
    while (true) {
      if (signal.aborted) throw signal.reason;
      const turn = await runModelTurn(context);
      addUsage(context.run, turn.usage);
      if (signal.aborted) throw signal.reason;
      if (turn.toolCalls.length === 0) {
        completeRun(context);
        return;
      }
      if ((await runToolRound(context, turn.text, turn.toolCalls)) === 'paused') return;
    }
  } catch (error) {
    const reason = signal.aborted ? (signal.reason as AbortReason) : undefined;
    if (reason === 'shutdown') return;
    if (reason === 'cancel') {
      cancelRunNow(context);
      return;
    }
    const lastError = toLastError(error);
    deps.log.warn(`run ${runId} failed: ${lastError.message}`);
    failRun(context, lastError);
  }
}
