import type { Database, Statement } from 'better-sqlite3';
import { newId, nowSeconds } from '../internal/ids';
import { paginate, type ListPage, type ListQuery } from '../internal/pagination';
import type { AgentObject, AgentRunObject, AgentRunStep, AgentRunStatus, NewAgentRunStep } from './agent-objects';
import type { Workflow } from './workflow-types';

interface AgentRow {
  id: string;
  account_id: string;
  name: string;
  draft_json: string;
  published_version: number | null;
  created_at: number;
  updated_at: number;
}

interface RunRow {
  id: string;
  agent_id: string;
  account_id: string;
  version: number;
  status: AgentRunStatus;
  message: string;
  variables_json: string;
  output: string | null;
  error: string | null;
  created_at: number;
  completed_at: number | null;
}

interface StepRow {
  id: string;
  node_id: string;
  type: 'message' | 'tool_call';
  call_id: string | null;
  tool: string | null;
  input_json: string | null;
  output: string | null;
}

/** SQLite rows of agents, published versions, runs and steps. Statements are prepared once. */
export class AgentStore {
  readonly #db: Database;
  readonly #getAgent: Statement<[string, string], AgentRow>;
  readonly #getVersion: Statement<[string, number], { workflow_json: string; name: string }>;
  readonly #getRun: Statement<[string, string, string], RunRow>;
  readonly #steps: Statement<[string], StepRow>;
  readonly #insertStep: Statement<unknown[]>;

  constructor(db: Database) {
    this.#db = db;
    this.#getAgent = db.prepare('SELECT * FROM agents WHERE id = ? AND account_id = ?');
    this.#getVersion = db.prepare('SELECT workflow_json, name FROM agent_versions WHERE agent_id = ? AND version = ?');
    this.#getRun = db.prepare('SELECT * FROM agent_runs WHERE id = ? AND agent_id = ? AND account_id = ?');
    this.#steps = db.prepare('SELECT * FROM agent_run_steps WHERE run_id = ? ORDER BY rowid');
    this.#insertStep = db.prepare(
      'INSERT INTO agent_run_steps (id, run_id, node_id, type, call_id, tool, input_json, output, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  createAgent(accountId: string, name: string, workflow: Workflow): AgentObject {
    const id = newId('agent_');
    const now = nowSeconds();
    this.#db
      .prepare('INSERT INTO agents (id, account_id, name, draft_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, accountId, name, JSON.stringify(workflow), now, now);
    return this.getAgent(accountId, id)!;
  }

  getAgent(accountId: string, id: string): AgentObject | undefined {
    const row = this.#getAgent.get(id, accountId);
    return row && this.#toAgent(row);
  }

  listAgents(accountId: string, query: ListQuery): ListPage<AgentObject> {
    return paginate<AgentRow, AgentObject>(this.#db, {
      table: 'agents',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => this.#toAgent(row),
    });
  }

  updateDraft(accountId: string, id: string, changes: { name?: string; workflow?: Workflow }): AgentObject | undefined {
    const row = this.#getAgent.get(id, accountId);
    if (!row) return undefined;
    this.#db
      .prepare('UPDATE agents SET name = ?, draft_json = ?, updated_at = ? WHERE id = ?')
      .run(changes.name ?? row.name, changes.workflow ? JSON.stringify(changes.workflow) : row.draft_json, nowSeconds(), id);
    return this.getAgent(accountId, id);
  }

  deleteAgent(accountId: string, id: string): boolean {
    return this.#db.prepare('DELETE FROM agents WHERE id = ? AND account_id = ?').run(id, accountId).changes > 0;
  }

  /** Snapshots the draft as the next version, in one transaction. */
  publish(accountId: string, id: string): AgentObject | undefined {
    return this.#db.transaction(() => {
      const row = this.#getAgent.get(id, accountId);
      if (!row) return undefined;
      const version = (row.published_version ?? 0) + 1;
      this.#db
        .prepare('INSERT INTO agent_versions (agent_id, version, name, workflow_json, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, version, row.name, row.draft_json, nowSeconds());
      this.#db.prepare('UPDATE agents SET published_version = ? WHERE id = ?').run(version, id);
      return this.getAgent(accountId, id);
    })();
  }

  /** The workflow of a published version. */
  publishedWorkflow(agentId: string, version: number): Workflow {
    return JSON.parse(this.#getVersion.get(agentId, version)!.workflow_json) as Workflow;
  }

  createRun(agent: AgentObject, version: number, message: string, variables: Record<string, unknown>): AgentRunObject {
    const id = newId('agentrun_');
    this.#db
      .prepare(
        `INSERT INTO agent_runs (id, agent_id, account_id, version, status, message, variables_json, created_at)
         VALUES (?, ?, ?, ?, 'in_progress', ?, ?, ?)`,
      )
      .run(id, agent.id, agent.account_id, version, message, JSON.stringify(variables), nowSeconds());
    return this.getRun(agent.account_id, agent.id, id)!;
  }

  addStep(runId: string, step: NewAgentRunStep): void {
    const isTool = step.type === 'tool_call';
    this.#insertStep.run(
      newId('step_'),
      runId,
      step.node_id,
      step.type,
      isTool ? step.call_id : null,
      isTool ? step.tool : null,
      isTool ? JSON.stringify(step.input) : null,
      isTool ? step.output : step.content,
      nowSeconds(),
    );
  }

  finishRun(runId: string, result: { status: 'completed'; output: string } | { status: 'failed'; error: string }): void {
    this.#db
      .prepare("UPDATE agent_runs SET status = ?, output = ?, error = ?, completed_at = ? WHERE id = ? AND status = 'in_progress'")
      .run(
        result.status,
        result.status === 'completed' ? result.output : null,
        result.status === 'failed' ? result.error : null,
        nowSeconds(),
        runId,
      );
  }

  /** Runs left `in_progress` by a previous process can never finish: they become failed. */
  failInterruptedRuns(error: string): number {
    return this.#db
      .prepare("UPDATE agent_runs SET status = 'failed', error = ?, completed_at = ? WHERE status = 'in_progress'")
      .run(error, nowSeconds()).changes;
  }

  getRun(accountId: string, agentId: string, runId: string): AgentRunObject | undefined {
    const row = this.#getRun.get(runId, agentId, accountId);
    return row && { ...this.#toRun(row), steps: this.#steps.all(row.id).map(toStep) };
  }

  listRuns(accountId: string, agentId: string, query: ListQuery): ListPage<Omit<AgentRunObject, 'steps'>> {
    return paginate<RunRow, Omit<AgentRunObject, 'steps'>>(this.#db, {
      table: 'agent_runs',
      where: 'agent_id = ? AND account_id = ?',
      params: [agentId, accountId],
      query,
      map: (row) => this.#toRun(row),
    });
  }

  #toAgent(row: AgentRow): AgentObject {
    const published = row.published_version === null ? undefined : this.#getVersion.get(row.id, row.published_version);
    return {
      id: row.id,
      object: 'agent',
      account_id: row.account_id,
      name: row.name,
      status: row.published_version === null ? 'draft' : 'published',
      version: row.published_version,
      has_unpublished_changes: !published || published.workflow_json !== row.draft_json || published.name !== row.name,
      workflow: JSON.parse(row.draft_json) as Workflow,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  #toRun(row: RunRow): Omit<AgentRunObject, 'steps'> {
    return {
      id: row.id,
      object: 'agent.run',
      agent_id: row.agent_id,
      version: row.version,
      status: row.status,
      message: row.message,
      variables: JSON.parse(row.variables_json) as Record<string, unknown>,
      output: row.output,
      error: row.error,
      created_at: row.created_at,
      completed_at: row.completed_at,
    };
  }
}

function toStep(row: StepRow): AgentRunStep {
  if (row.type === 'message') return { id: row.id, type: 'message', node_id: row.node_id, content: row.output ?? '' };
  return {
    id: row.id,
    type: 'tool_call',
    node_id: row.node_id,
    call_id: row.call_id!,
    tool: row.tool!,
    input: row.input_json ? JSON.parse(row.input_json) : {},
    output: row.output ?? '',
  };
}
