import type { LeasedTask, LeaseQueue } from '../internal/leased-worker';
import { newId, nowSeconds } from '../internal/ids';
import type { ListPage, ListQuery } from '../internal/pagination';
import { currentRequestId } from '../observability/request-context';
import { paginate, placeholders, type Repository, type SqlClient, SqlLeaseQueue, toPage } from '../storage';
import type { AgentRecord, NewAgentRunStep } from './agent-objects';
import type { AgentVersion, AgentVersionWithWorkflow } from './wire/agents';
import type { AgentRun, AgentRunStatus, AgentRunStep, AgentRunSummary } from './wire/runs';
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

interface VersionRow {
  agent_id: string;
  version: number;
  name: string;
  workflow_json: string;
  created_at: number;
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

const RUN_COLUMNS = 'id, agent_id, account_id, version, status, message, variables_json, output, error, created_at, completed_at';

interface StepRow {
  id: string;
  node_id: string;
  type: 'message' | 'tool_call' | 'tools_unavailable';
  call_id: string | null;
  tool: string | null;
  input_json: string | null;
  output: string | null;
}

/** A lease on a run: the process (`owner`) executing it until `until` (ms) unless renewed. */
export interface AgentRunLease {
  owner: string;
  until: number;
}

export type AgentRunResult = { status: 'completed'; output: string } | { status: 'failed'; error: string };

/**
 * Storage of agents, their published versions, and runs with their steps. A run in progress is leased:
 * its steps and its end are written only by the process holding the lease.
 */
/** What identifies an agent and its published version, without its workflow. */
export type AgentHead = Pick<AgentRecord, 'id' | 'account_id' | 'version'>;

export interface AgentsRepository extends Repository<AgentsRepository> {
  createAgent(accountId: string, name: string, workflow: Workflow): Promise<AgentRecord>;
  getAgent(accountId: string, id: string): Promise<AgentRecord | undefined>;
  /** The agent's id and published version, without reading its workflow (runs, versions and lists of runs need no more). */
  getAgentHead(accountId: string, id: string): Promise<AgentHead | undefined>;
  listAgents(accountId: string, query: ListQuery): Promise<ListPage<AgentRecord>>;
  updateDraft(accountId: string, id: string, changes: { name?: string; workflow?: Workflow }): Promise<AgentRecord | undefined>;
  deleteAgent(accountId: string, id: string): Promise<boolean>;
  /** Snapshots the draft as the next version (the agent row is locked meanwhile: concurrent publishes number in turn). Use in a transaction. */
  publish(accountId: string, id: string): Promise<number | undefined>;
  /** The workflow of a published version. */
  publishedWorkflow(agentId: string, version: number): Promise<Workflow | undefined>;
  /** Published versions of an agent, newest first by default; `after`/`before` are version ids (`<agent>@<n>`) or numbers. */
  listVersions(agentId: string, query: ListQuery): Promise<ListPage<AgentVersion>>;
  /** One published version with its workflow. */
  getVersion(agentId: string, version: number): Promise<AgentVersionWithWorkflow | undefined>;
  /** Stores a run `in_progress`, leased to the process that executes it. */
  createRun(
    agent: AgentHead,
    version: number,
    message: string,
    variables: Record<string, unknown>,
    lease: AgentRunLease,
  ): Promise<AgentRun>;
  /** Appends a step while `owner` holds the run's lease; false (nothing written) otherwise. */
  addStep(runId: string, owner: string, step: NewAgentRunStep): Promise<boolean>;
  /** Ends a run in progress held by `owner`; false when it is not (any more) theirs or already ended. */
  finishRun(runId: string, owner: string, result: AgentRunResult): Promise<boolean>;
  getRun(accountId: string, agentId: string, runId: string): Promise<AgentRun | undefined>;
  /** Runs of an agent, newest first by default. */
  listRuns(agentId: string, query: ListQuery): Promise<ListPage<AgentRunSummary>>;
  /** The queue of runs in progress whose process stopped renewing their lease (or gave it back). */
  queue(): LeaseQueue<LeasedTask>;
}

/** The SQL of agents, the same on SQLite and PostgreSQL. */
export class SqlAgentsRepository implements AgentsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): AgentsRepository {
    return new SqlAgentsRepository(tx);
  }

  async createAgent(accountId: string, name: string, workflow: Workflow): Promise<AgentRecord> {
    const id = newId('agent_');
    const now = nowSeconds();
    await this.db.run('INSERT INTO agents (id, account_id, name, draft_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
      id,
      accountId,
      name,
      JSON.stringify(workflow),
      now,
      now,
    ]);
    return (await this.getAgent(accountId, id))!;
  }

  async getAgent(accountId: string, id: string): Promise<AgentRecord | undefined> {
    const row = await this.db.get<AgentRow>('SELECT * FROM agents WHERE id = ? AND account_id = ?', [id, accountId]);
    return row && (await this.#toAgents([row]))[0];
  }

  async getAgentHead(accountId: string, id: string): Promise<AgentHead | undefined> {
    const row = await this.db.get<{ id: string; account_id: string; published_version: number | null }>(
      'SELECT id, account_id, published_version FROM agents WHERE id = ? AND account_id = ?',
      [id, accountId],
    );
    return row && { id: row.id, account_id: row.account_id, version: row.published_version };
  }

  async listAgents(accountId: string, query: ListQuery): Promise<ListPage<AgentRecord>> {
    const page = await paginate<AgentRow, AgentRow & { id: string }>(this.db, {
      table: 'agents',
      columns: 'id, account_id, name, draft_json, published_version, created_at, updated_at',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => row,
    });
    return { ...page, data: await this.#toAgents(page.data) };
  }

  async updateDraft(accountId: string, id: string, changes: { name?: string; workflow?: Workflow }): Promise<AgentRecord | undefined> {
    const sets: string[] = ['updated_at = ?'];
    const params: unknown[] = [nowSeconds()];
    if (changes.name !== undefined) {
      sets.push('name = ?');
      params.push(changes.name);
    }
    if (changes.workflow !== undefined) {
      sets.push('draft_json = ?');
      params.push(JSON.stringify(changes.workflow));
    }
    const result = await this.db.run(`UPDATE agents SET ${sets.join(', ')} WHERE id = ? AND account_id = ?`, [...params, id, accountId]);
    return result.changes > 0 ? this.getAgent(accountId, id) : undefined;
  }

  async deleteAgent(accountId: string, id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM agents WHERE id = ? AND account_id = ?', [id, accountId])).changes > 0;
  }

  async publish(accountId: string, id: string): Promise<number | undefined> {
    const row = await this.db.get<{ version: number; name: string; draft_json: string }>(
      `UPDATE agents SET published_version = COALESCE(published_version, 0) + 1 WHERE id = ? AND account_id = ?
       RETURNING published_version AS version, name, draft_json`,
      [id, accountId],
    );
    if (!row) return undefined;
    await this.db.run('INSERT INTO agent_versions (agent_id, version, name, workflow_json, created_at) VALUES (?, ?, ?, ?, ?)', [
      id,
      row.version,
      row.name,
      row.draft_json,
      nowSeconds(),
    ]);
    return row.version;
  }

  async publishedWorkflow(agentId: string, version: number): Promise<Workflow | undefined> {
    const row = await this.db.get<{ workflow_json: string }>(
      'SELECT workflow_json FROM agent_versions WHERE agent_id = ? AND version = ?',
      [agentId, version],
    );
    return row && (JSON.parse(row.workflow_json) as Workflow);
  }

  async listVersions(agentId: string, query: ListQuery): Promise<ListPage<AgentVersion>> {
    const limit = query.limit ?? 20;
    const order = query.order ?? 'desc';
    const conditions = ['agent_id = ?'];
    const params: unknown[] = [agentId];
    const cursor = (value: string, op: string) => {
      const number = value.startsWith(`${agentId}@`) ? value.slice(agentId.length + 1) : value;
      if (!/^\d+$/.test(number)) {
        conditions.push('1 = 0');
        return;
      }
      conditions.push(`version ${op} ?`);
      params.push(Number(number));
    };
    if (query.after) cursor(query.after, order === 'desc' ? '<' : '>');
    if (query.before) cursor(query.before, order === 'desc' ? '>' : '<');
    const rows = await this.db.all<VersionRow>(
      // Not `workflow_json`: a version list shows names and numbers only.
      `SELECT agent_id, version, name, created_at FROM agent_versions WHERE ${conditions.join(' AND ')} ORDER BY version ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...params, limit + 1],
    );
    return toPage(rows, limit, toVersion);
  }

  async getVersion(agentId: string, version: number): Promise<AgentVersionWithWorkflow | undefined> {
    const row = await this.db.get<VersionRow>('SELECT * FROM agent_versions WHERE agent_id = ? AND version = ?', [agentId, version]);
    return row && { ...toVersion(row), workflow: JSON.parse(row.workflow_json) as Workflow };
  }

  async createRun(
    agent: AgentHead,
    version: number,
    message: string,
    variables: Record<string, unknown>,
    lease: AgentRunLease,
  ): Promise<AgentRun> {
    const id = newId('agentrun_');
    await this.db.run(
      `INSERT INTO agent_runs (id, agent_id, account_id, version, status, message, variables_json, created_at, lease_owner, lease_until, attempts, created_ms, request_id)
       VALUES (?, ?, ?, ?, 'in_progress', ?, ?, ?, ?, ?, 1, ?, ?)`,
      [
        id,
        agent.id,
        agent.account_id,
        version,
        message,
        JSON.stringify(variables),
        nowSeconds(),
        lease.owner,
        lease.until,
        Date.now(),
        currentRequestId(),
      ],
    );
    return (await this.getRun(agent.account_id, agent.id, id))!;
  }

  addStep(runId: string, owner: string, step: NewAgentRunStep): Promise<boolean> {
    const isTool = step.type === 'tool_call';
    // A `tools_unavailable` step keeps its card id in `tool` and its reason in `output`.
    const isUnavailable = step.type === 'tools_unavailable';
    return this.db.transaction(async (tx) => {
      // A no-op write: it checks the lease and, on PostgreSQL, locks the run until the step is in.
      const held = await tx.run(
        "UPDATE agent_runs SET lease_owner = lease_owner WHERE id = ? AND lease_owner = ? AND status = 'in_progress'",
        [runId, owner],
      );
      if (held.changes === 0) return false;
      await tx.run(
        'INSERT INTO agent_run_steps (id, run_id, node_id, type, call_id, tool, input_json, output, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          newId('step_'),
          runId,
          step.node_id,
          step.type,
          isTool ? step.call_id : null,
          isTool ? step.tool : isUnavailable ? step.card_id : null,
          isTool ? JSON.stringify(step.input) : null,
          isTool ? step.output : isUnavailable ? step.error : step.content,
          nowSeconds(),
        ],
      );
      return true;
    });
  }

  async finishRun(runId: string, owner: string, result: AgentRunResult): Promise<boolean> {
    const update = await this.db.run(
      `UPDATE agent_runs SET status = ?, output = ?, error = ?, completed_at = ?, lease_until = NULL
       WHERE id = ? AND status = 'in_progress' AND lease_owner = ?`,
      [
        result.status,
        result.status === 'completed' ? result.output : null,
        result.status === 'failed' ? result.error : null,
        nowSeconds(),
        runId,
        owner,
      ],
    );
    return update.changes > 0;
  }

  async getRun(accountId: string, agentId: string, runId: string): Promise<AgentRun | undefined> {
    const row = await this.db.get<RunRow>('SELECT * FROM agent_runs WHERE id = ? AND agent_id = ? AND account_id = ?', [
      runId,
      agentId,
      accountId,
    ]);
    if (!row) return undefined;
    const order = this.db.dialect === 'sqlite' ? 'rowid' : 'seq';
    const steps = await this.db.all<StepRow>(`SELECT * FROM agent_run_steps WHERE run_id = ? ORDER BY ${order}`, [row.id]);
    return { ...toRun(row), steps: steps.map(toStep) };
  }

  listRuns(agentId: string, query: ListQuery): Promise<ListPage<AgentRunSummary>> {
    return paginate<RunRow, AgentRunSummary>(this.db, {
      table: 'agent_runs',
      columns: RUN_COLUMNS,
      where: 'agent_id = ?',
      params: [agentId],
      query,
      map: toRun,
    });
  }

  queue(): LeaseQueue<LeasedTask> {
    return new SqlLeaseQueue<LeasedTask>(this.db, {
      table: 'agent_runs',
      waiting: "status = 'in_progress' AND lease_owner IS NULL",
      working: "status = 'in_progress' AND lease_owner IS NOT NULL",
      order: 'created_ms',
      toTask: (row) => ({ id: String(row.id), attempts: Number(row.attempts) }),
    });
  }

  /**
   * Agent objects of rows, with `has_unpublished_changes` from their published versions (one query for
   * all). The database compares draft and version, so the versions' workflows are not read.
   */
  async #toAgents(rows: AgentRow[]): Promise<AgentRecord[]> {
    const published = rows.filter((row) => row.published_version !== null);
    const unchanged = new Set<string>();
    if (published.length > 0) {
      const found = await this.db.all<{ agent_id: string }>(
        `SELECT v.agent_id FROM agent_versions v JOIN agents a ON a.id = v.agent_id AND a.published_version = v.version
         WHERE v.agent_id IN ${placeholders(published.length)} AND v.workflow_json = a.draft_json AND v.name = a.name`,
        published.map((row) => row.id),
      );
      for (const version of found) unchanged.add(version.agent_id);
    }
    return rows.map((row) => ({
      id: row.id,
      object: 'agent',
      account_id: row.account_id,
      name: row.name,
      status: row.published_version === null ? 'draft' : 'published',
      version: row.published_version,
      has_unpublished_changes: !unchanged.has(row.id),
      workflow: JSON.parse(row.draft_json) as Workflow,
      created_at: row.created_at,
      updated_at: row.updated_at,
    }));
  }
}

function toVersion(row: VersionRow): AgentVersion {
  return {
    id: `${row.agent_id}@${row.version}`,
    object: 'agent.version',
    agent_id: row.agent_id,
    version: row.version,
    name: row.name,
    created_at: row.created_at,
  };
}

function toRun(row: RunRow): AgentRunSummary {
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

function toStep(row: StepRow): AgentRunStep {
  if (row.type === 'message') return { id: row.id, type: 'message', node_id: row.node_id, content: row.output ?? '' };
  if (row.type === 'tools_unavailable') {
    return { id: row.id, type: 'tools_unavailable', node_id: row.node_id, card_id: row.tool ?? '', error: row.output ?? '' };
  }
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
