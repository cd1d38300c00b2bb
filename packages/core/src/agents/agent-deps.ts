import type { Database } from '../db';
import type { FathomConfig } from '../config';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract, ChatToolDefinition } from '../models/types';
import type { CompiledWebhookTool, CompileResult, WebhookCard, WebhookExecuteOptions } from '../webhooks';

/** What the runner needs from the WebhookToolkit (its public API, structurally, so tests may fake it). */
export interface AgentWebhooks {
  compile(cards: WebhookCard[], options?: { reservedNames?: string[] }): CompileResult;
  toolDefinition(tool: CompiledWebhookTool): ChatToolDefinition;
  execute(card: WebhookCard, routeName: string, args: unknown, options?: WebhookExecuteOptions): Promise<string>;
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
