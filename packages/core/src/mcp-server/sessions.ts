import { randomToken } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { type McpSessionsRepository, SqlMcpSessionsRepository } from './sessions-repository';

export interface McpSessionsOptions {
  db: SqlClient;
  log: Logger;
  /** A session unused this long ends (its next request answers 404 and the client starts a new one), ms; default 24 hours. */
  idleMs?: number;
  /** Clock in ms; default `Date.now`. Nodes sharing a database should have synchronised clocks. */
  now?: () => number;
  repository?: McpSessionsRepository;
}

/** What a client sent in `initialize`, kept with its session. */
export interface McpSessionStart {
  protocolVersion: string;
  clientName?: string;
  clientVersion?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A use is recorded at most this often per session: a session's idle clock needs minutes, not every request. */
const TOUCH_EVERY_MS = 60_000;
/** Sessions past their idle time are deleted at most this often, when one opens. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * The sessions of Fathom's MCP endpoints, in the database: any node answers a session another opened,
 * and ending one (DELETE) ends it on every node at once. A session belongs to one account and one
 * endpoint (`scope`); its id alone grants nothing (every request also carries the account's key).
 */
export class McpSessions {
  readonly #sessions: McpSessionsRepository;
  readonly #log: Logger;
  readonly #idleMs: number;
  readonly #now: () => number;
  #sweptMs = 0;

  constructor(options: McpSessionsOptions) {
    this.#sessions = options.repository ?? new SqlMcpSessionsRepository(options.db);
    this.#log = options.log;
    this.#idleMs = options.idleMs ?? DAY_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Opens a session and answers its id (`mcps_` + 40 random base62 characters, about 238 bits). */
  async open(accountId: string, scope: string, start: McpSessionStart): Promise<string> {
    const id = `mcps_${randomToken(40)}`;
    const nowMs = this.#now();
    await this.#sessions.insert({ id, accountId, scope, nowMs, ...start });
    if (nowMs - this.#sweptMs > SWEEP_EVERY_MS) {
      this.#sweptMs = nowMs;
      // Bookkeeping: a session opens whether or not old ones could be removed now.
      await this.#sessions
        .sweep(nowMs - this.#idleMs)
        .catch((error: Error) => this.#log.warn(`mcp: sweeping sessions failed: ${error.message}`));
    }
    return id;
  }

  /** True when the session is open for this account on this endpoint; records the use. */
  async isOpen(accountId: string, scope: string, id: string): Promise<boolean> {
    const session = await this.#sessions.find(id, accountId, scope);
    if (!session) return false;
    const nowMs = this.#now();
    if (nowMs - session.last_used_ms > this.#idleMs) {
      await this.#sessions.end(id, accountId, scope);
      return false;
    }
    if (nowMs - session.last_used_ms > TOUCH_EVERY_MS) await this.#sessions.touch(id, nowMs);
    return true;
  }

  /** Ends the session everywhere; false when this account has no such session on this endpoint. */
  end(accountId: string, scope: string, id: string): Promise<boolean> {
    return this.#sessions.end(id, accountId, scope);
  }
}
