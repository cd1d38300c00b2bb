import type { Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { SqlClient } from '../storage';
import type { StoreSearcher } from '../vector/types';
import type { AssistantsRepository } from './assistants-repository';
import type { RunEvents } from './run-events';
import type { RunState } from './run-state';
import type { RunsRepository } from './runs-repository';
import type { ThreadsRepository } from './threads-repository';
import { FILE_SEARCH_CONTENT_INCLUDE, type Run, type RunStep } from './types';

/** What every step of the run loop reads and writes through. */
export interface RunDeps {
  /** For transactions spanning the repositories. */
  db: SqlClient;
  assistants: AssistantsRepository;
  threads: ThreadsRepository;
  runs: RunsRepository;
  events: RunEvents;
  chat: ChatAdapterContract;
  searcher: StoreSearcher;
  log: Logger;
  /** Model answers asking for tools allowed per run before it fails. */
  maxToolRounds: number;
  /** Longest wait for stores still ingesting before a file_search (ms). */
  ingestionWaitMs: number;
}

/** One run being executed by the process holding its lease: its stored object and state, mutated in place. */
export interface RunContext {
  deps: RunDeps;
  accountId: string;
  run: Run;
  state: RunState;
  /** Fires on cancel (this process), shutdown, or a lost lease; `reason` is a `TaskStopped`. */
  signal: AbortSignal;
  /** The lease owner: the run's writes are conditioned on it. */
  owner: string;
}

/** Emits a run event (the run object as it is now). */
export function emitRun(context: Pick<RunContext, 'deps' | 'run'>, status: string = context.run.status): void {
  context.deps.events.emit(context.run.id, `thread.run.${status}`, context.run);
}

/** Emits a step event; file_search passage text only when the stream's `include[]` asked for it. */
export function emitStep(context: Pick<RunContext, 'deps' | 'run' | 'state'>, name: string, step: RunStep): void {
  context.deps.events.emit(context.run.id, `thread.run.step.${name}`, presentStep(step, context.state.include ?? []));
}

/** A run step as the API shows it: `file_search.results[*].content` only when included. */
export function presentStep(step: RunStep, include: readonly string[]): RunStep {
  if (step.step_details.type !== 'tool_calls' || include.includes(FILE_SEARCH_CONTENT_INCLUDE)) return step;
  return {
    ...step,
    step_details: {
      type: 'tool_calls',
      tool_calls: step.step_details.tool_calls.map((call) =>
        call.type === 'file_search'
          ? {
              ...call,
              file_search: { ...call.file_search, results: call.file_search.results?.map(({ content: _content, ...rest }) => rest) },
            }
          : call,
      ),
    },
  };
}
