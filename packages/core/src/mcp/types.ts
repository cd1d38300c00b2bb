import type { McpServerConfig } from '../config/mcp-servers';

/** A remote MCP server as API input may name it: a URL and the headers sent with every request (never stdio). */
export interface McpRemoteServer {
  url: string;
  /** Sent with every request (e.g. `Authorization: Bearer …`); never logged, stored or shown in an error. */
  headers?: Record<string, string>;
}

/** What `connectMcpServer` connects to: a remote server, or an operator's `FATHOM_MCP_SERVERS` entry (which may be stdio). */
export type McpServerTarget = McpRemoteServer | McpServerConfig;

/** A `fetch` the transports use for every request: in Fathom, `EgressGuard.fetch`. */
export type McpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface McpConnectOptions {
  /** Every HTTP request of the connection goes through it (the egress guard's `fetch`). Required for remote servers. */
  fetch?: McpFetch;
  /** Deadline of the connection (initialize, and the fallback attempt), in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Ends the attempt to connect (not the connection once made: `close()` does). */
  signal?: AbortSignal;
  /** Called when the server sends `notifications/tools/list_changed` (list the tools again). */
  onToolsChanged?: () => void;
}

/** A tool as the server lists it (`tools/list`). */
export interface McpToolInfo {
  name: string;
  description?: string;
  /** The tool's `inputSchema` (a JSON Schema object). */
  inputSchema: Record<string, unknown>;
  /** `readOnlyHint`, `destructiveHint`, … as the server states them (hints, untrusted). */
  annotations?: Record<string, unknown>;
}

export interface McpListToolsOptions {
  /** Deadline of the whole listing (every page), in milliseconds. Default 10000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Tools kept from one server; listing stops there and `truncated` is set. Default `MAX_MCP_TOOLS` (128). */
  maxTools?: number;
}

export interface McpToolList {
  tools: McpToolInfo[];
  /** The server had more than `maxTools` tools; the first ones are kept. */
  truncated: boolean;
}

export interface McpCallToolOptions {
  /** Deadline of the call, in milliseconds. Default 60000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Characters of text kept (marked when cut). Default `MAX_TOOL_RESULT_CHARS` (100,000). */
  maxChars?: number;
}

/** A tool call's result as text for the model (see `mcpResultToText`). */
export interface McpToolOutcome {
  text: string;
  /** The server answered `isError: true` (the text says what went wrong, from the server's side). */
  isError: boolean;
  /** The text was cut to `maxChars` (its last line says so). */
  truncated: boolean;
}
