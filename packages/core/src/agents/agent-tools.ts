import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import type { CompiledWebhookTool, CompileResult, WebhookCard, WebhookToolCollision } from '../webhooks';
import type { AgentWebhooks } from './agent-deps';
import type { BuiltInTool } from './built-in-tools';
import type { AgentNode, WebhookNode } from './workflow-types';

/** One tool an agent node may call: its definition for the model and how to run it. */
export interface AgentTool {
  definition: ChatToolDefinition;
  /** Where it comes from: `built-in`, or the id of the Webhook card node. */
  source: string;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** A card node compiled into its tools (the same answer for the same node within one request). */
export type CompileCard = (card: WebhookNode) => CompileResult;

/**
 * Compiles each card node once however many agent nodes see it: validation, the tool preview and a
 * run ask for a card once per agent that sees it. A card that cannot compile (an unfinished draft)
 * throws the same error each time.
 */
export function compiledCards(compile: (cards: WebhookCard[]) => CompileResult): CompileCard {
  const done = new Map<WebhookNode, { result: CompileResult } | { error: unknown }>();
  return (card) => {
    let entry = done.get(card);
    if (!entry) {
      try {
        entry = { result: compile([card.data]) };
      } catch (error) {
        entry = { error };
      }
      done.set(card, entry);
    }
    if ('error' in entry) throw entry.error;
    return entry.result;
  };
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
  /**
   * The definition of a compiled tool; the preview passes one that makes each definition once for all
   * its agent nodes. Default: `webhooks.toolDefinition(tool)` (a fresh copy for each node).
   */
  define?: (tool: CompiledWebhookTool) => ChatToolDefinition;
}

/** A tool chosen for the node, made into an `AgentTool` only if `tools_filter` keeps it. */
type Candidate = { builtIn: BuiltInTool } | { card: WebhookNode; tool: CompiledWebhookTool };

/** `built-in <name>` or `<card name>/<route name>`, for collision reports. */
const labelOf = (candidate: Candidate) =>
  'builtIn' in candidate
    ? `built-in ${candidate.builtIn.definition.function.name}`
    : `${candidate.card.data.name}/${candidate.tool.routeName}`;

function toAgentTool(
  candidate: Candidate,
  options: AgentToolsOptions,
  define: (tool: CompiledWebhookTool) => ChatToolDefinition,
): AgentTool {
  if ('builtIn' in candidate) {
    const { builtIn } = candidate;
    return {
      definition: builtIn.definition,
      source: 'built-in',
      run: (args, signal) => builtIn.run(args, { model: options.node.data.model, signal, accountId: options.accountId }),
    };
  }
  const { card, tool } = candidate;
  const rateLimitKey = `${options.agentId}:${card.id}`;
  return {
    definition: define(tool),
    source: card.id,
    run: (args, signal) => options.webhooks.execute(card.data, tool.routeName, args, { signal, rateLimitKey }),
  };
}

/**
 * The tools an agent node sees: built-ins, then the routes of its cards (a later name overwrites an
 * earlier one, as the spec's collision rule says), narrowed by `config.tools_filter`. Route tools get
 * their definition from `toolDefinition`, so no card configuration or credential reaches the model.
 * The work is one map entry per tool the node sees; definitions are made only for the tools it keeps.
 */
export function agentTools(options: AgentToolsOptions): Map<string, AgentTool> {
  const { node, webhooks, log } = options;
  const compile = options.compile ?? ((card: WebhookNode) => webhooks.compile([card.data]));
  const define = options.define ?? ((tool: CompiledWebhookTool) => webhooks.toolDefinition(tool));
  // Map.set keeps an overwritten name at its first position, as the model receives it.
  const chosen = new Map<string, Candidate>();
  for (const builtIn of options.builtIns) chosen.set(builtIn.definition.function.name, { builtIn });
  for (const card of options.cards) {
    const { tools: compiled, collisions: inCard } = compile(card);
    let collisions: WebhookToolCollision[] | undefined;
    for (const tool of compiled) {
      const earlier = chosen.get(tool.name);
      const candidate = { card, tool };
      if (earlier) (collisions ??= []).push({ name: tool.name, overwritten: labelOf(earlier), by: labelOf(candidate) });
      chosen.set(tool.name, candidate);
    }
    if (inCard.length > 0 || collisions) {
      log.warn(`agent ${options.agentId}: tool names collide in card '${card.id}'`, [...inCard, ...(collisions ?? [])]);
    }
    for (const { name } of collisions ?? []) {
      log.warn(`agent ${options.agentId}: route tool '${name}' of card '${card.id}' overwrites an earlier tool`);
    }
  }
  const filter = node.data.config?.tools_filter;
  if (Array.isArray(filter) && filter.length > 0) {
    const kept = new Set(filter);
    for (const name of chosen.keys()) if (!kept.has(name)) chosen.delete(name);
  }
  const tools = new Map<string, AgentTool>();
  for (const [name, candidate] of chosen) tools.set(name, toAgentTool(candidate, options, define));
  return tools;
}
