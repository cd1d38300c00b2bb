import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import type { AgentWebhooks } from './agent-deps';
import type { BuiltInTool } from './built-in-tools';
import type { AgentNode, WebhookNode } from './workflow-types';

/** One tool an agent node may call: its definition for the model and how to run it. */
export interface AgentTool {
  definition: ChatToolDefinition;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

export interface AgentToolsOptions {
  agentId: string;
  node: AgentNode;
  /** Cards the node sees (received through a pipeline, then its own slots), in collision order. */
  cards: WebhookNode[];
  builtIns: BuiltInTool[];
  webhooks: AgentWebhooks;
  accountId: string;
  log: Logger;
}

/**
 * The tools an agent node sees: built-ins, then the routes of its cards (a later name overwrites an
 * earlier one, as the spec's collision rule says), narrowed by `config.tools_filter`. Route tools get
 * their definition from `toolDefinition`, so no card configuration or credential reaches the model.
 */
export function agentTools(options: AgentToolsOptions): Map<string, AgentTool> {
  const { node, webhooks, log } = options;
  const tools = new Map<string, AgentTool>();
  for (const tool of options.builtIns) {
    tools.set(tool.definition.function.name, {
      definition: tool.definition,
      run: (args, signal) => tool.run(args, { model: node.data.model, signal, accountId: options.accountId }),
    });
  }
  const reservedNames = options.builtIns.map((tool) => tool.definition.function.name);
  for (const card of options.cards) {
    const { tools: compiled, collisions } = webhooks.compile([card.data], { reservedNames: [...reservedNames, ...tools.keys()] });
    if (collisions.length > 0) log.warn(`agent ${options.agentId}: tool names collide in card '${card.id}'`, collisions);
    for (const tool of compiled) {
      const name = tool.name;
      if (tools.has(name)) log.warn(`agent ${options.agentId}: route tool '${name}' of card '${card.id}' overwrites an earlier tool`);
      tools.set(name, {
        definition: webhooks.toolDefinition(tool),
        run: (args, signal) => webhooks.execute(card.data, tool.routeName, args, { signal, rateLimitKey: `${options.agentId}:${card.id}` }),
      });
    }
  }
  const filter = node.data.config?.tools_filter;
  if (filter && filter.length > 0) {
    for (const name of [...tools.keys()]) if (!filter.includes(name)) tools.delete(name);
  }
  return tools;
}
