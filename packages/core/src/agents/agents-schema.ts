import type { Schema } from '../db';

/** Agents, their published snapshots, and runs with their steps. */
export const agentsSchema: Schema = {
  component: 'agents',
  postgres: [],
  sqlite: [
    `CREATE TABLE agents (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      draft_json TEXT NOT NULL,
      published_version INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX agents_account ON agents(account_id);
    CREATE TABLE agent_versions (
      agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      version INTEGER NOT NULL,
      name TEXT NOT NULL,
      workflow_json TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, version)
    );
    CREATE TABLE agent_runs (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('in_progress', 'completed', 'failed')),
      message TEXT NOT NULL,
      variables_json TEXT NOT NULL,
      output TEXT,
      error TEXT,
      created_at INTEGER NOT NULL,
      completed_at INTEGER
    );
    CREATE INDEX agent_runs_agent ON agent_runs(agent_id);
    CREATE INDEX agent_runs_status ON agent_runs(status);
    CREATE TABLE agent_run_steps (
      id TEXT PRIMARY KEY,
      run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
      node_id TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('message', 'tool_call')),
      call_id TEXT,
      tool TEXT,
      input_json TEXT,
      output TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX agent_run_steps_run ON agent_run_steps(run_id);`,
  ],
};
