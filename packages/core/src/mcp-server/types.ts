import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

/** Which endpoint a request reached: `/mcp` (the account's data, data tools and agents) or one agent's. */
export type McpScope = { kind: 'account' } | { kind: 'agent'; agentId: string };

/** What a tool call may use besides its arguments. */
export interface McpToolContext {
  accountId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Sends an MCP progress notification when the client asked for them (a `progressToken`); a no-op otherwise. */
  progress(message: string): Promise<void>;
}

/** One tool of an endpoint: what `tools/list` shows, and what `tools/call` runs. */
export interface McpTool {
  definition: Tool;
  call(args: Record<string, unknown>, context: McpToolContext): Promise<CallToolResult>;
}

/** The tools of one endpoint for one account. */
export interface McpToolSet {
  list(): Promise<McpTool[]>;
  /** The tool of this name; undefined when the endpoint has none (a protocol error for the client). */
  find(name: string): Promise<McpTool | undefined>;
}

/** A tool's answer as text, marked as an error when it is one (the model reads it and may try again). */
export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}
