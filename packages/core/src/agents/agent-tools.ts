import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import type { WebhookToolCollision } from '../webhooks';
import type { AgentWebhooks } from './agent-deps';
import type { BuiltInTool } from './built-in-tools';
import type { CompileCard } from './seen-tools';
import type { AgentNode, WebhookNode } from './workflow-types';

/** One tool an agent node may call: its definition for the model and how to run it. */
export interface AgentTool {
  definition: ChatToolDefinition;
  /** Where it comes from: `built-in`, or the id of the Webhook card node. */
  source: string;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

export interface AgentToolsOptions {
  agentId: string;
  node: AgentNode;
  /** Cards the node sees (received through a pipeline, then its own slots), in collision order. */
  cards: readonly WebhookNode[];
  builtIns: BuiltInTool[];
  webhooks: AgentWebhooks;
  accountId: string;
  log: Logger;
  /**
   * Compiles a card; a run or preview passes one `compiledCards` for all its agent nodes so each card
   * is compiled once. Default: `webhooks.compile([card.data])` each time.
   */
  compile?: CompileCard;
}

/** A tool chosen for the node, made into an `AgentTool` only if `tools_filter` keeps it. */
interface Candidate {
  /** `built-in <name>` or `<card name>/<route name>`, for collision reports. */
  label: string;
  make(): AgentTool;
}

/**
 * The tools an agent node sees: built-ins, then the routes of its cards (a later name overwrites an
 * earlier one, as the spec's collision rule says), narrowed by `config.tools_filter`. Route tools get
 * their definition from `toolDefinition`, so no card configuration or credential reaches the model.
 * The work is one step per tool the node sees; definitions are made only for the tools it keeps.
 */
export function agentTools(options: AgentToolsOptions): Map<string, AgentTool> {
  const { node, webhooks, log } = options;
  const compile = options.compile ?? ((card: WebhookNode) => webhooks.compile([card.data]));
  // Map.set keeps an overwritten name at its first position, as the model receives it.
  const chosen = new Map<string, Candidate>();
  for (const tool of options.builtIns) {
    const name = tool.definition.function.name;
    chosen.set(name, {
      label: `built-in ${name}`,
      make: () => ({
        definition: tool.definition,
        source: 'built-in',
        run: (args, signal) => tool.run(args, { model: node.data.model, signal, accountId: options.accountId }),
      }),
    });
  }
  for (const card of options.cards) {
    const { tools: compiled, collisions: inCard } = compile(card);
    const collisions: WebhookToolCollision[] = [...inCard];
    const overwrites: string[] = [];
    for (const tool of compiled) {
      const label = `${card.data.name}/${tool.routeName}`;
      const earlier = chosen.get(tool.name);
      if (earlier) {
        collisions.push({ name: tool.name, overwritten: earlier.label, by: label });
        overwrites.push(tool.name);
      }
      chosen.set(tool.name, {
        label,
        make: () => ({
          definition: webhooks.toolDefinition(tool),
          source: card.id,
          run: (args, signal) => webhooks.execute(card.data, tool.routeName, args, { signal, rateLimitKey: `${options.agentId}:${card.id}` }),
        }),
      });
    }
    if (collisions.length > 0) log.warn(`agent ${options.agentId}: tool names collide in card '${card.id}'`, collisions);
    for (const name of overwrites) log.warn(`agent ${options.agentId}: route tool '${name}' of card '${card.id}' overwrites an earlier tool`);
  }
  const filter = node.data.config?.tools_filter;
  if (Array.isArray(filter) && filter.length > 0) {
    const kept = new Set(filter);
    for (const name of chosen.keys()) if (!kept.has(name)) chosen.delete(name);
  }
  const tools = new Map<string, AgentTool>();
  for (const [name, candidate] of chosen) tools.set(name, candidate.make());
  return tools;
}
