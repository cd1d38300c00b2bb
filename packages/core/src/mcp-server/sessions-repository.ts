import type { Repository, SqlClient } from '../storage';

/** A session of an MCP endpoint as stored. */
export interface McpSessionRow {
  id: string;
  account_id: string;
  /** `account` (`/mcp`) or `agent:<id>` (`/v1/agents/{id}/mcp`). */
  scope: string;
  protocol_version: string;
  client_name: string | null;
  client_version: string | null;
  created_ms: number;
  last_used_ms: number;
}

export interface NewMcpSession {
  id: string;
  accountId: string;
  scope: string;
  protocolVersion: string;
  clientName?: string;
  clientVersion?: string;
  nowMs: number;
}

/** Storage of MCP sessions: every node reads and ends the same rows. */
export interface McpSessionsRepository extends Repository<McpSessionsRepository> {
  insert(session: NewMcpSession): Promise<void>;
  /** The session with this id, account and scope; undefined when there is none (never opened, ended, or another's). */
  find(id: string, accountId: string, scope: string): Promise<McpSessionRow | undefined>;
  /** Records a use of the session (the idle timeout counts from the last one). */
  touch(id: string, nowMs: number): Promise<void>;
  /** Ends (deletes) the session; false when this account has no such session on this scope. */
  end(id: string, accountId: string, scope: string): Promise<boolean>;
  /** Deletes sessions last used before `beforeMs`; answers how many. */
  sweep(beforeMs: number): Promise<number>;
}

export class SqlMcpSessionsRepository implements McpSessionsRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): McpSessionsRepository {
    return new SqlMcpSessionsRepository(tx);
  }

  async insert(session: NewMcpSession): Promise<void> {
    await this.db.run(
      `INSERT INTO mcp_sessions (id, account_id, scope, protocol_version, client_name, client_version, created_ms, last_used_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        session.id,
        session.accountId,
        session.scope,
        session.protocolVersion,
        session.clientName ?? null,
        session.clientVersion ?? null,
        session.nowMs,
        session.nowMs,
      ],
    );
  }

  find(id: string, accountId: string, scope: string): Promise<McpSessionRow | undefined> {
    return this.db.get<McpSessionRow>('SELECT * FROM mcp_sessions WHERE id = ? AND account_id = ? AND scope = ?', [id, accountId, scope]);
  }

  async touch(id: string, nowMs: number): Promise<void> {
    await this.db.run('UPDATE mcp_sessions SET last_used_ms = ? WHERE id = ? AND last_used_ms < ?', [nowMs, id, nowMs]);
  }

  async end(id: string, accountId: string, scope: string): Promise<boolean> {
    const removed = await this.db.run('DELETE FROM mcp_sessions WHERE id = ? AND account_id = ? AND scope = ?', [id, accountId, scope]);
    return removed.changes > 0;
  }

  async sweep(beforeMs: number): Promise<number> {
    const removed = await this.db.run('DELETE FROM mcp_sessions WHERE last_used_ms < ?', [beforeMs]);
    return removed.changes;
  }
}
