import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import { type CompiledWebhookTool, type CompileResult, sanitizeToolName, type WebhookCard, type WebhookToolCollision } from '../webhooks';
import type { AgentWebhooks } from './agent-deps';
import type { BuiltInTool } from './built-in-tools';
import { type AgentMcp, allowedMcpTools, type McpListings, type McpServerTool, mcpToolDefinition } from './mcp-card-tools';
import { MCP_CARD_LIMITS } from './wire/mcp-card';
import type { AgentNode, McpNode, ToolCardNode, WebhookNode } from './workflow-types';

/** One tool an agent node may call: its definition for the model and how to run it. */
export interface AgentTool {
  definition: ChatToolDefinition;
  /** Where it comes from: `built-in`, or the id of the Webhook or MCP card node. */
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
  cards: readonly ToolCardNode[];
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
  /** Calls the tools of MCP cards. */
  mcp?: AgentMcp;
  /** The tools of the MCP cards (`listMcpCards`); an MCP card without a listing adds no tool. */
  mcpListings?: McpListings;
}

/** A tool chosen for the node, made into an `AgentTool` only if `tools_filter` keeps it. */
type Candidate =
  | { builtIn: BuiltInTool }
  | { card: WebhookNode; tool: CompiledWebhookTool }
  | { mcpCard: McpNode; mcpTool: McpServerTool; name: string };

/** `built-in <name>`, `<card name>/<route name>` or `<MCP card name>/<server tool name>`, for collision reports. */
const labelOf = (candidate: Candidate) => {
  if ('builtIn' in candidate) return `built-in ${candidate.builtIn.definition.function.name}`;
  if ('mcpCard' in candidate) return `${candidate.mcpCard.data.name}/${candidate.mcpTool.name}`;
  return `${candidate.card.data.name}/${candidate.tool.routeName}`;
};

/** An MCP card's tools under their sanitised names, with the collisions inside the card (a later tool wins, as for routes). */
function mcpCandidates(
  card: McpNode,
  listings: McpListings | undefined,
): { named: Array<[string, Candidate]>; collisions: WebhookToolCollision[] } {
  const listing = listings?.get(card);
  const byName = new Map<string, Candidate>();
  const collisions: WebhookToolCollision[] = [];
  if (!listing || !('tools' in listing)) return { named: [], collisions };
  for (const mcpTool of allowedMcpTools(card, listing.tools)) {
    const name = sanitizeToolName(mcpTool.name);
    const candidate: Candidate = { mcpCard: card, mcpTool, name };
    const earlier = byName.get(name);
    if (earlier) collisions.push({ name, overwritten: labelOf(earlier), by: labelOf(candidate) });
    byName.set(name, candidate);
  }
  return { named: [...byName.entries()], collisions };
}

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
  if ('mcpCard' in candidate) {
    const { mcpCard, mcpTool, name } = candidate;
    const mcp = options.mcp;
    const timeout = mcpCard.data.config.timeout ?? MCP_CARD_LIMITS.defaultTimeoutMs;
    return {
      definition: mcpToolDefinition(name, mcpTool),
      source: mcpCard.id,
      run: async (args, signal) => {
        if (!mcp) throw new Error('MCP servers are not available in this installation');
        const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeout)]);
        try {
          return await mcp.callTool(mcpCard.data, mcpTool.name, args, { signal: deadline, accountId: options.accountId });
        } catch (error) {
          if (!signal.aborted && deadline.aborted) throw new Error(`the MCP tool '${mcpTool.name}' did not answer within ${timeout} ms`);
          throw error;
        }
      },
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
 * The tools an agent node sees: built-ins, then the routes of its Webhook cards and the listed tools of
 * its MCP cards (names sanitised as route names are; a later name overwrites an earlier one, as the
 * spec's collision rule says), narrowed by `config.tools_filter`. Route tools get their definition from
 * `toolDefinition` and MCP tools from the server's listing, so no card configuration or credential
 * reaches the model.
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
    let inCard: WebhookToolCollision[];
    let named: Array<[string, Candidate]>;
    if (card.type === 'mcp') {
      ({ named, collisions: inCard } = mcpCandidates(card, options.mcpListings));
    } else {
      const compiled = compile(card);
      inCard = compiled.collisions;
      named = compiled.tools.map((tool) => [tool.name, { card, tool }]);
    }
    let collisions: WebhookToolCollision[] | undefined;
    for (const [name, candidate] of named) {
      const earlier = chosen.get(name);
      if (earlier) (collisions ??= []).push({ name, overwritten: labelOf(earlier), by: labelOf(candidate) });
      chosen.set(name, candidate);
    }
    if (inCard.length > 0 || collisions) {
      log.warn(`agent ${options.agentId}: tool names collide in card '${card.id}'`, [...inCard, ...(collisions ?? [])]);
    }
    for (const { name } of collisions ?? []) {
      log.warn(
        `agent ${options.agentId}: ${card.type === 'mcp' ? 'MCP' : 'route'} tool '${name}' of card '${card.id}' overwrites an earlier tool`,
      );
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
