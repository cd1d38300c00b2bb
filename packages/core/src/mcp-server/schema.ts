import type { Schema } from '../storage';

/**
 * Sessions of Fathom's MCP endpoints (`/mcp`, `/v1/agents/{id}/mcp`), kept in the database so any node
 * behind a load balancer answers a session another node opened, and a DELETE on one node ends it on all (the row is deleted).
 * `scope` is `account` or `agent:<id>`: a session is good only on the endpoint that opened it.
 */
export const mcpServerSchema: Schema = {
  component: 'mcp_server',
  sqlite: [
    `CREATE TABLE mcp_sessions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      scope TEXT NOT NULL,
      protocol_version TEXT NOT NULL,
      client_name TEXT,
      client_version TEXT,
      created_ms INTEGER NOT NULL,
      last_used_ms INTEGER NOT NULL
    );
    CREATE INDEX mcp_sessions_last_used ON mcp_sessions(last_used_ms);`,
  ],
  postgres: [
    `CREATE TABLE mcp_sessions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      scope TEXT NOT NULL,
      protocol_version TEXT NOT NULL,
      client_name TEXT,
      client_version TEXT,
      created_ms BIGINT NOT NULL,
      last_used_ms BIGINT NOT NULL
    );
    CREATE INDEX mcp_sessions_last_used ON mcp_sessions(last_used_ms);`,
  ],
};
