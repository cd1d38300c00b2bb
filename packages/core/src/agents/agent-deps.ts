import type { FathomConfig } from '../config';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract, ChatToolDefinition } from '../models/types';
import type { SqlClient } from '../storage';
import type { CompiledWebhookTool, CompileResult, WebhookCard, WebhookExecuteOptions } from '../webhooks';
import type { AgentMcp } from './mcp-card-tools';

/** What the runner needs from the WebhookToolkit (its public API, structurally, so tests may fake it). */
export interface AgentWebhooks {
  compile(cards: WebhookCard[], options?: { reservedNames?: string[] }): CompileResult;
  toolDefinition(tool: CompiledWebhookTool): ChatToolDefinition;
  execute(card: WebhookCard, routeName: string, args: unknown, options?: WebhookExecuteOptions): Promise<string>;
}

export interface AgentsOptions {
  /** The database (SQLite or PostgreSQL) holding agents, versions and runs. */
  db: SqlClient;
  /** Settings read once at start: the `web_search` service (`FATHOM_WEB_SEARCH_URL`/`_KEY`) and the lease length. */
  config: Pick<FathomConfig, 'webSearch'> & Partial<Pick<FathomConfig, 'leaseSeconds'>>;
  chat: ChatAdapterContract;
  webhooks: AgentWebhooks;
  /** The MCP client of MCP cards (listing and calling a server's tools); without it MCP cards offer no tools. */
  mcp?: AgentMcp;
  log: Logger;
  /** Tool-calling rounds one agent node may take before the run fails; default 10. */
  maxToolRounds?: number;
  /** How often this process looks for runs whose process stopped, ms; default 1000. */
  pollMs?: number;
}
