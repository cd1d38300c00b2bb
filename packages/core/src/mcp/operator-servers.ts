import type { McpServerConfig } from '../config/mcp-servers';

/**
 * The operator's server of that label (`FATHOM_MCP_SERVERS`), or undefined. API input names a server by
 * label only; what it runs (a stdio command, a URL and its headers) stays in the operator's settings.
 */
export function operatorMcpServer(servers: Readonly<Record<string, McpServerConfig>>, label: string): McpServerConfig | undefined {
  return Object.hasOwn(servers, label) ? servers[label] : undefined;
}
