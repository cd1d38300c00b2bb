/**
 * The MCP client layer: Fathom connecting to MCP servers (the Responses `mcp` tool, agents' MCP cards).
 *
 *   const connection = await connectMcpServer({ url, headers }, { fetch: egress.fetch, timeoutMs });
 *   const { tools } = await connection.listTools({ maxTools, timeoutMs, signal });
 *   const { text, isError, truncated } = await connection.callTool(name, args, { timeoutMs, signal });
 *   await connection.close();
 *
 * Remote servers: Streamable HTTP, falling back to HTTP+SSE on a 4xx; every request through the egress
 * guard's `fetch` (refusals throw `EgressDeniedError`). Failures throw `McpClientError` (502/504) with a
 * message safe for the model. Operator servers (`FATHOM_MCP_SERVERS`, `config.mcpServers`) are the only
 * stdio servers; API input names them by label (`operatorMcpServer`).
 */
export {
  connectMcpServer,
  McpConnection,
  type McpTransportKind,
  MAX_MCP_TOOLS,
  MCP_CALL_TIMEOUT_MS,
  MCP_CONNECT_TIMEOUT_MS,
  MCP_LIST_TIMEOUT_MS,
} from './connection';
export { mcpResultToText } from './content';
export { McpClientError, egressRefusal } from './errors';
export { operatorMcpServer } from './operator-servers';
export type {
  McpCallToolOptions,
  McpConnectOptions,
  McpFetch,
  McpListToolsOptions,
  McpRemoteServer,
  McpServerTarget,
  McpToolInfo,
  McpToolList,
  McpToolOutcome,
} from './types';
export { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
