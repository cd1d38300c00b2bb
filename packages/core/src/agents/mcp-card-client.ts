import { createHash } from 'node:crypto';
import type { Logger } from '../internal/logger';
import type { McpServerConfig } from '../config/mcp-servers';
import { connectMcpServer, type McpConnection, type McpFetch, type McpRemoteServer, type McpServerTarget, operatorMcpServer } from '../mcp';
import type { AgentMcp, AgentMcpCallOptions, McpServerTool } from './mcp-card-tools';
import { MCP_CARD_LIMITS, type McpCard } from './wire/mcp-card';

/** How long a card's tool list is used before the server is asked again (unless it says they changed). */
export const MCP_TOOLS_TTL_MS = 60_000;
/** A connection unused this long is closed. */
export const MCP_IDLE_MS = 5 * 60_000;

export interface McpCardClientOptions {
  /** Every request to a card's server goes through it: the egress guard's `fetch`. */
  fetch: McpFetch;
  log?: Logger;
  /** Tool lists are kept this long, ms; default `MCP_TOOLS_TTL_MS`. */
  toolsTtlMs?: number;
  /** Connections unused this long are closed, ms; default `MCP_IDLE_MS`. */
  idleMs?: number;
  /**
   * The operator's servers (`FATHOM_MCP_SERVERS`): a card whose `serverUrl` is one of these labels uses
   * that server with the operator's settings (its headers, or a stdio process), not the card's auth.
   */
  servers?: Readonly<Record<string, McpServerConfig>>;
  /** Opens a connection; default `connectMcpServer` (tests may count or slow it). */
  connect?: typeof connectMcpServer;
}

/** One card's server (per account and credentials): its connection and its last tool list. */
interface Entry {
  connection: Promise<McpConnection>;
  tools?: { list: McpServerTool[]; at: number };
  /** When the server last said its tools changed (ms). */
  changedAt: number;
  usedAt: number;
}

/** The URL and headers a card's `auth` and `headers` make (the Webhook card's five auth shapes). */
export function mcpCardServer(card: McpCard): McpRemoteServer {
  const { serverUrl = '', auth, headers: extra } = card.config;
  const headers: Record<string, string> = { ...(extra ?? {}) };
  let url = serverUrl.trim();
  switch (auth?.type) {
    case 'bearer':
      headers.Authorization = `Bearer ${auth.token}`;
      break;
    case 'api_key': {
      const name = auth.apiKeyName || 'X-API-Key';
      if (auth.apiKeyLocation === 'query') {
        const parsed = new URL(url);
        parsed.searchParams.set(name, auth.apiKey);
        url = parsed.toString();
      } else headers[name] = auth.apiKey;
      break;
    }
    case 'basic':
      headers.Authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}`;
      break;
    case 'custom_header':
      if (auth.customHeaderName) headers[auth.customHeaderName] = auth.customHeaderValue;
      break;
  }
  return { url, headers };
}

/**
 * The MCP client of agents' MCP cards (`AgentMcp`) over the MCP client layer (`../mcp`): one connection per
 * account and card configuration (URL, auth, headers), reused by runs and previews and closed when idle;
 * its tool list kept for `toolsTtlMs` and dropped as soon as the server sends
 * `notifications/tools/list_changed`. A connection that fails is dropped, so the next use connects again.
 * Credentials are only in the connection's headers: the cache key is a hash.
 */
export class McpCardClient implements AgentMcp {
  readonly #options: McpCardClientOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #sweep: NodeJS.Timeout;

  constructor(options: McpCardClientOptions) {
    this.#options = options;
    const idleMs = options.idleMs ?? MCP_IDLE_MS;
    this.#sweep = setInterval(() => this.#closeIdle(idleMs), Math.min(idleMs, 60_000));
    this.#sweep.unref();
  }

  async listTools(card: McpCard, options: AgentMcpCallOptions): Promise<McpServerTool[]> {
    const { key, entry } = this.#entry(card, options.accountId);
    const ttl = this.#options.toolsTtlMs ?? MCP_TOOLS_TTL_MS;
    if (entry.tools && Date.now() - entry.tools.at < ttl) return entry.tools.list;
    try {
      const connection = await entry.connection;
      const timeoutMs = card.config.timeout ?? MCP_CARD_LIMITS.defaultTimeoutMs;
      const at = Date.now();
      const { tools } = await connection.listTools({ timeoutMs, signal: options.signal });
      const list = tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
      // A change announced while the list was on its way leaves it stale: it is used once, not kept.
      if (this.#entries.get(key) === entry && entry.changedAt < at) entry.tools = { list, at };
      return list;
    } catch (error) {
      this.#drop(key, entry);
      throw error;
    }
  }

  async callTool(
    card: McpCard,
    name: string,
    args: Record<string, unknown>,
    options: AgentMcpCallOptions & { signal: AbortSignal },
  ): Promise<string> {
    const { key, entry } = this.#entry(card, options.accountId);
    let connection: McpConnection;
    try {
      connection = await entry.connection;
    } catch (error) {
      this.#drop(key, entry);
      throw error;
    }
    const timeoutMs = card.config.timeout ?? MCP_CARD_LIMITS.defaultTimeoutMs;
    const outcome = await connection.callTool(name, args, { timeoutMs, signal: options.signal });
    return outcome.isError ? `Error: ${outcome.text}` : outcome.text;
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.connection.then((connection) => connection.close()).catch(() => undefined)));
  }

  /** The server a card names: an operator's server by label, else its URL with its auth and headers. */
  #target(card: McpCard): { target: McpServerTarget; identity: unknown } {
    const label = (card.config.serverUrl ?? '').trim();
    const operator = this.#options.servers ? operatorMcpServer(this.#options.servers, label) : undefined;
    if (operator) return { target: operator, identity: ['operator', label] };
    const server = mcpCardServer(card);
    return { target: server, identity: [server.url, server.headers] };
  }

  #entry(card: McpCard, accountId: string): { key: string; entry: Entry } {
    const { target: server, identity } = this.#target(card);
    const key = createHash('sha256')
      .update(JSON.stringify([accountId, identity]))
      .digest('hex');
    const existing = this.#entries.get(key);
    if (existing) {
      existing.usedAt = Date.now();
      return { key, entry: existing };
    }
    const changed = () => {
      entry.changedAt = Date.now();
      entry.tools = undefined;
    };
    const entry: Entry = {
      usedAt: Date.now(),
      changedAt: 0,
      connection: (this.#options.connect ?? connectMcpServer)(server, {
        fetch: this.#options.fetch,
        timeoutMs: card.config.timeout ?? MCP_CARD_LIMITS.defaultTimeoutMs,
        onToolsChanged: changed,
      }),
    };
    // A failed connection is dropped by the call that meets it; this keeps it from being an unhandled rejection.
    entry.connection.catch(() => undefined);
    this.#entries.set(key, entry);
    return { key, entry };
  }

  #drop(key: string, entry: Entry): void {
    if (this.#entries.get(key) !== entry) return;
    this.#entries.delete(key);
    entry.connection.then((connection) => connection.close()).catch(() => undefined);
  }

  #closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) if (now - entry.usedAt > idleMs) this.#drop(key, entry);
  }
}
