import type { Database } from '../db';
import type { FathomConfig } from '../config';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract, ChatToolDefinition } from '../models/types';
import type { WorkflowWebhookConfig } from './workflow-types';

/** A Webhook card as the toolkit takes it: the `data` of a webhook node. */
export interface AgentWebhookCard {
  name: string;
  config: WorkflowWebhookConfig;
}

/** A compiled route tool, as `WebhookToolkit.compile` returns it. */
export interface AgentCompiledTool {
  name: string;
  routeName: string;
}

/** What the runner needs from the WebhookToolkit (its public API, structurally). */
export interface AgentWebhooks {
  compile(cards: any[], options?: { reservedNames?: string[] }): { tools: any[]; collisions: unknown[] };
  toolDefinition(tool: any): ChatToolDefinition;
  execute(card: any, routeName: string, args: any, options?: { signal?: AbortSignal; rateLimitKey?: string }): Promise<string>;
}

export interface AgentsOptions {
  db: Database;
  config: Pick<FathomConfig, 'env'>;
  chat: ChatAdapterContract;
  webhooks: AgentWebhooks;
  log: Logger;
  /** Tool-calling rounds one agent node may take before the run fails; default 10. */
  maxToolRounds?: number;
}
