import { BODY_LIMITS } from './body-limits';
import type { Route } from './route';
import { accountRoutes } from './routes/account';
import { adminRoutes } from './routes/admin';
import { agentsRoutes } from './routes/agents';
import { assistantsRoutes } from './routes/assistants';
import { documentsRoutes } from './routes/documents';
import { agentMcpRoutes, mcpRoutes } from './routes/mcp';
import { modelsRoutes } from './routes/models';
import { responsesRoutes } from './routes/responses';
import { searchRoutes } from './routes/search';
import { toolsRoutes } from './routes/tools';

/** What a family says about its routes in the OpenAPI document: its tag, and whether OpenAI has such operations. */
interface FamilyInfo {
  tag: string;
  /** Fathom's own operations, with no OpenAI counterpart. */
  extension?: boolean;
}

/**
 * Routes of a file, each with the file's body limit unless it sets its own (the few that carry more), and
 * the family's tag.
 */
function family(routes: readonly Route[], bodyLimit: number, info: FamilyInfo): Route[] {
  return routes.map((route) => ({
    ...route,
    bodyLimit: route.bodyLimit ?? bodyLimit,
    tag: route.tag ?? info.tag,
    extension: route.extension ?? info.extension ?? false,
  }));
}

/** Which routes a listener serves: `platform` (all but agents), `agents`, or `all`. */
export type Surface = 'all' | 'platform' | 'agents';

/** Every route a server with this surface registers, with its body limit. */
export function routeTables(surface: Surface = 'all'): Route[] {
  return [
    ...family(accountRoutes, BODY_LIMITS.admin, { tag: 'Account', extension: true }),
    ...(surface !== 'agents'
      ? [
          ...family(adminRoutes, BODY_LIMITS.admin, { tag: 'Admin', extension: true }),
          ...family(documentsRoutes, BODY_LIMITS.documents, { tag: 'Files and vector stores' }),
          ...family(searchRoutes, BODY_LIMITS.documents, { tag: 'Files and vector stores' }),
          // Mixed files: chat completions, responses and conversation items set the chat limit themselves.
          ...family(modelsRoutes, BODY_LIMITS.default, { tag: 'Models' }),
          ...family(responsesRoutes, BODY_LIMITS.default, { tag: 'Responses' }),
          ...family(assistantsRoutes, BODY_LIMITS.assistants, { tag: 'Assistants' }),
          ...family(toolsRoutes, BODY_LIMITS.tools, { tag: 'Data tools', extension: true }),
          ...family(mcpRoutes, BODY_LIMITS.default, { tag: 'MCP', extension: true }),
        ]
      : []),
    ...(surface !== 'platform'
      ? [
          ...family(agentsRoutes, BODY_LIMITS.agents, { tag: 'Agents', extension: true }),
          ...family(agentMcpRoutes, BODY_LIMITS.default, { tag: 'MCP', extension: true }),
        ]
      : []),
  ];
}
