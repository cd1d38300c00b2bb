import type { Database } from '../db';
import { NotFoundError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import type { ChatMessage } from '../models/types';
import type { Run, RunStep, StepDetails, ToolResources } from './types';

/** What a run needs to resume after a pause (requires_action) or to finish its citations. */
export interface RunState {
  /** Turns the run added after the thread's messages: assistant tool calls and tool results. */
  transcript: ChatMessage[];
  /** Citation marker (`{turn}:{index}`) -> the passage's file. */
  citations: Record<string, { file_id: string; filename: string }>;
  /** file_search calls made so far (the `turn` of the next markers). */
  searches: number;
  /** Model answers that asked for tools so far (capped by `maxToolRounds`). */
  toolRounds: number;
  /** The tool_calls step waiting for function outputs, while `requires_action`. */
  pendingStepId?: string;
  /** `include[]` of the request that started the stream (adds passage text to streamed steps). */
  include?: string[];
  /** `tool_resources` given on createAndRun: replaces the assistant's stores for this run. */
  toolResources?: ToolResources | null;
}

export const emptyRunState = (): RunState => ({ transcript: [], citations: {}, searches: 0, toolRounds: 0 });

/** Runs and run steps, with the run's resumable state. Every write replaces the whole JSON object. */
export class RunStore {
  constructor(private readonly db: Database) {}

  insert(accountId: string, run: Run): void {
    this.db
      .prepare('INSERT INTO runs (id, account_id, thread_id, status, data, state) VALUES (?, ?, ?, ?, ?, ?)')
      .run(run.id, accountId, run.thread_id, run.status, JSON.stringify(run), JSON.stringify(emptyRunState()));
  }

  save(run: Run, state?: RunState): void {
    if (state) {
      this.db
        .prepare('UPDATE runs SET status = ?, data = ?, state = ? WHERE id = ?')
        .run(run.status, JSON.stringify(run), JSON.stringify(state), run.id);
    } else {
      this.db.prepare('UPDATE runs SET status = ?, data = ? WHERE id = ?').run(run.status, JSON.stringify(run), run.id);
    }
  }

  get(accountId: string, threadId: string, id: string): Run {
    const row = this.db
      .prepare<[string, string, string], { data: string }>('SELECT data FROM runs WHERE id = ? AND thread_id = ? AND account_id = ?')
      .get(id, threadId, accountId);
    if (!row) throw new NotFoundError('run', id);
    return JSON.parse(row.data) as Run;
  }

  /** The latest stored run, by id only (the runner's own reads). */
  byId(id: string): { run: Run; state: RunState; accountId: string } | undefined {
    const row = this.db
      .prepare<[string], { data: string; state: string; account_id: string }>('SELECT data, state, account_id FROM runs WHERE id = ?')
      .get(id);
    return row ? { run: JSON.parse(row.data), state: JSON.parse(row.state), accountId: row.account_id } : undefined;
  }

  list(accountId: string, threadId: string, query: ListQuery): ListPage<Run> {
    return paginate<{ data: string }, Run>(this.db, {
      table: 'runs',
      where: 'thread_id = ? AND account_id = ?',
      params: [threadId, accountId],
      query,
      map: (row) => JSON.parse(row.data) as Run,
    });
  }

  /** The run of this thread that is not finished yet, if any (a thread runs one at a time). */
  activeRunOf(threadId: string): Run | undefined {
    const row = this.db
      .prepare<[string], { data: string }>(
        "SELECT data FROM runs WHERE thread_id = ? AND status IN ('queued', 'in_progress', 'requires_action', 'cancelling') LIMIT 1",
      )
      .get(threadId);
    return row ? (JSON.parse(row.data) as Run) : undefined;
  }

  /** Ids of runs in any of these statuses (restart recovery). */
  idsWithStatus(statuses: readonly string[]): string[] {
    const marks = statuses.map(() => '?').join(', ');
    return this.db
      .prepare<string[], { id: string }>(`SELECT id FROM runs WHERE status IN (${marks})`)
      .all(...statuses)
      .map((row) => row.id);
  }

  createStep(accountId: string, run: Run, details: StepDetails): RunStep {
    const step: RunStep = {
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
    this.db
      .prepare('INSERT INTO run_steps (id, account_id, thread_id, run_id, status, data) VALUES (?, ?, ?, ?, ?, ?)')
      .run(step.id, accountId, run.thread_id, run.id, step.status, JSON.stringify(step));
    return step;
  }

  saveStep(step: RunStep): void {
    this.db.prepare('UPDATE run_steps SET status = ?, data = ? WHERE id = ?').run(step.status, JSON.stringify(step), step.id);
  }

  stepById(id: string): RunStep | undefined {
    const row = this.db.prepare<[string], { data: string }>('SELECT data FROM run_steps WHERE id = ?').get(id);
    return row ? (JSON.parse(row.data) as RunStep) : undefined;
  }

  getStep(accountId: string, threadId: string, runId: string, id: string): RunStep {
    const row = this.db
      .prepare<[string, string, string, string], { data: string }>(
        'SELECT data FROM run_steps WHERE id = ? AND run_id = ? AND thread_id = ? AND account_id = ?',
      )
      .get(id, runId, threadId, accountId);
    if (!row) throw new NotFoundError('run step', id);
    return JSON.parse(row.data) as RunStep;
  }

  listSteps(accountId: string, threadId: string, runId: string, query: ListQuery): ListPage<RunStep> {
    this.get(accountId, threadId, runId);
    return paginate<{ data: string }, RunStep>(this.db, {
      table: 'run_steps',
      where: 'run_id = ?',
      params: [runId],
      query,
      map: (row) => JSON.parse(row.data) as RunStep,
    });
  }

  /** Steps of a run still `in_progress` (closed when the run ends abnormally). */
  openSteps(runId: string): RunStep[] {
    return this.db
      .prepare<[string], { data: string }>("SELECT data FROM run_steps WHERE run_id = ? AND status = 'in_progress'")
      .all(runId)
      .map((row) => JSON.parse(row.data) as RunStep);
  }
}
