import type { ChatToolDefinition } from '../models/types';
import type { McpCard } from './wire/mcp-card';
import type { McpNode } from './workflow-types';

/** One tool of an MCP server, as its `tools/list` gives it. */
export interface McpServerTool {
  name: string;
  description?: string;
  /** The JSON Schema of its arguments. */
  inputSchema?: Record<string, unknown>;
}

/** Who asks: tool lists and connections are kept per account, never shared across accounts. */
export interface AgentMcpCallOptions {
  accountId: string;
  signal?: AbortSignal;
}

/**
 * What agents need of the MCP client (structurally, so tests may fake it): the tools of a card's server
 * and a call of one of them. Both reach the server through the egress guard with the card's `auth` and
 * `headers`; a failure throws an Error whose message is safe to show (no credential in it).
 */
export interface AgentMcp {
  /** The server's tools (cached per card for a short time, refreshed when the server says they changed). */
  listTools(card: McpCard, options: AgentMcpCallOptions): Promise<McpServerTool[]>;
  /** Calls one tool by the server's own name; the answer is text for the model (an error result included). */
  callTool(
    card: McpCard,
    name: string,
    args: Record<string, unknown>,
    options: AgentMcpCallOptions & { signal: AbortSignal },
  ): Promise<string>;
  /** Closes the connections it keeps. */
  close?(): Promise<void>;
}

/** The tools of one MCP card for a run or a preview, or why there are none. */
export type McpCardListing = { tools: McpServerTool[] } | { error: string };

/** The listings of the MCP cards of one run or preview, each card listed once. */
export type McpListings = ReadonlyMap<McpNode, McpCardListing>;

/** The tools the card lets the agent see: all of them, or those `allowedTools` names (the server's spelling). */
export function allowedMcpTools(card: McpNode, tools: readonly McpServerTool[]): McpServerTool[] {
  const allowed = card.data.config.allowedTools;
  if (!Array.isArray(allowed)) return [...tools];
  const names = new Set(allowed);
  return tools.filter((tool) => names.has(tool.name));
}

/** The definition the model receives for a server tool, under its sanitised name. */
export function mcpToolDefinition(name: string, tool: McpServerTool): ChatToolDefinition {
  return {
    type: 'function',
    function: {
      name,
      description: tool.description ?? '',
      parameters: tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object', properties: {} },
    },
  };
}

/** The text a run event and a preview warning give for a card whose server could not be listed. */
export function unavailableText(card: McpNode, error: string): string {
  return `MCP card '${card.data.name}' (node '${card.id}'): its tools are not available (${error}); the agent runs without them.`;
}

/**
 * The message of a listing failure, without the card's secrets: a client error may quote the URL it
 * was given (which can carry a token in its query or user part), so the URL is replaced by its origin.
 */
function safeMessage(card: McpNode, error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  const url = card.data.config.serverUrl ?? '';
  if (url) {
    let origin = '[server]';
    try {
      origin = new URL(url).origin;
    } catch {
      // Not a URL: the placeholder stays.
    }
    message = message.split(url).join(origin);
  }
  for (const secret of cardSecrets(card)) message = message.split(secret).join('********');
  return message || 'the server could not be reached';
}

/** The credential values of a card (auth secret and header values), to keep them out of error texts. */
function cardSecrets(card: McpNode): string[] {
  const { auth, headers } = card.data.config;
  const values: string[] = [];
  if (auth?.type === 'bearer') values.push(auth.token);
  if (auth?.type === 'api_key') values.push(auth.apiKey);
  if (auth?.type === 'basic') values.push(auth.password);
  if (auth?.type === 'custom_header') values.push(auth.customHeaderValue);
  for (const value of Object.values(headers ?? {})) values.push(value);
  return values.filter((value) => typeof value === 'string' && value.length >= 4);
}

/**
 * Lists the servers of `cards` (each once, all at once): a card whose server cannot be reached (refused
 * by the egress guard, down, too slow, not MCP) gets `{error}` and the agent runs without its tools.
 * Without an MCP client (`mcp` undefined) every card gets an error saying so.
 */
export async function listMcpCards(
  cards: Iterable<McpNode>,
  mcp: AgentMcp | undefined,
  options: AgentMcpCallOptions,
): Promise<Map<McpNode, McpCardListing>> {
  const unique = [...new Set(cards)];
  const listings = await Promise.all(
    unique.map(async (card): Promise<McpCardListing> => {
      if (!mcp) return { error: 'MCP servers are not available in this installation' };
      try {
        return { tools: await mcp.listTools(card.data, options) };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        return { error: safeMessage(card, error) };
      }
    }),
  );
  return new Map(unique.map((card, index) => [card, listings[index]!]));
}
