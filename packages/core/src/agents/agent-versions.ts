import type { Database, Statement } from 'better-sqlite3';
import type { Workflow } from './workflow-types';

/** One published snapshot of an agent, as `GET /v1/agents/{id}/versions` lists it. */
export interface AgentVersionObject {
  /** `<agent_id>@<version>`. */
  id: string;
  object: 'agent.version';
  agent_id: string;
  version: number;
  /** The agent's name when this version was published. */
  name: string;
  created_at: number;
}

interface VersionRow {
  agent_id: string;
  version: number;
  name: string;
  workflow_json: string;
  created_at: number;
}

/** Reads published versions (written by `AgentStore.publish`); callers check the agent's owner first. */
export class AgentVersions {
  readonly #list: Statement<[string], VersionRow>;
  readonly #get: Statement<[string, number], VersionRow>;

  constructor(db: Database) {
    this.#list = db.prepare('SELECT * FROM agent_versions WHERE agent_id = ? ORDER BY version DESC');
    this.#get = db.prepare('SELECT * FROM agent_versions WHERE agent_id = ? AND version = ?');
  }

  /** Every version of an agent, newest first. */
  list(agentId: string): AgentVersionObject[] {
    return this.#list.all(agentId).map(toVersion);
  }

  get(agentId: string, version: number): (AgentVersionObject & { workflow: Workflow }) | undefined {
    const row = this.#get.get(agentId, version);
    return row && { ...toVersion(row), workflow: JSON.parse(row.workflow_json) as Workflow };
  }
}

function toVersion(row: VersionRow): AgentVersionObject {
  return {
    id: `${row.agent_id}@${row.version}`,
    object: 'agent.version',
    agent_id: row.agent_id,
    version: row.version,
    name: row.name,
    created_at: row.created_at,
  };
}
