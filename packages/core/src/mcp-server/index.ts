// Fathom as an MCP server (Streamable HTTP): `fathom.mcpServer.handle(...)` answers `/mcp` and `/v1/agents/{id}/mcp`.
export { FathomMcpServer, type FathomMcpServerOptions, type McpRequestOptions } from './fathom-mcp-server';
export { mcpServerSchema } from './schema';
export { McpSessions, type McpSessionsOptions } from './sessions';
export { mcpSourcesOf, type McpCapabilities } from './fathom-sources';
export type { McpSources, McpDocuments, McpDataTools, McpAgents, PublishedAgent, McpRouteTool } from './sources';
export type { McpScope } from './types';
export { MAX_AGENT_TOOLS } from './agent-run-tools';
export { MAX_SEARCH_STORES } from './document-tools';
export { RESOURCE_PAGE } from './resources';
