import type { ResourceFamily } from '@fathom/core';
import { BODY_LIMITS } from './body-limits';
import type { Route } from './route';
import { accountRoutes } from './routes/account';
import { adminRoutes } from './routes/admin';
import { adminKeyRoutes, keyRoutes } from './routes/keys';
import { agentsRoutes } from './routes/agents';
import { assistantsRoutes } from './routes/assistants';
import { batchesRoutes } from './routes/batches';
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
    family: route.family ?? familyOf(route.path),
    extension: route.extension ?? info.extension ?? false,
  }));
}

/**
 * The resource family of each path (a key's `permissions` name families), by its first segments; the
 * longest matching prefix wins. `admin` routes take the admin key, `public` ones no key; neither is a
 * family a key's permissions govern.
 */
const FAMILIES: ReadonlyArray<readonly [prefix: string, family: ResourceFamily | 'admin' | 'public']> = [
  ['/v1/models', 'models'],
  ['/v1/chat/', 'models'],
  ['/v1/responses', 'responses'],
  ['/v1/conversations', 'responses'],
  ['/v1/assistants', 'assistants'],
  ['/v1/threads', 'assistants'],
  ['/v1/files', 'files'],
  ['/v1/uploads', 'files'],
  ['/v1/vector_stores', 'vector_stores'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/tools', 'tools'],
  ['/mcp', 'tools'],
  ['/v1/agents', 'agents'],
  ['/v1/batches', 'batches'],
  ['/v1/usage', 'usage'],
  ['/v1/costs', 'usage'],
  ['/v1/account', 'usage'],
  ['/v1/account/keys', 'keys'],
  ['/v1/admin', 'admin'],
  ['/v1/openapi.json', 'public'],
];

/** The family of a path, or undefined when no prefix matches (the route-table test refuses that). */
export function familyOf(path: string): ResourceFamily | 'admin' | 'public' | undefined {
  let best: (typeof FAMILIES)[number] | undefined;
  for (const entry of FAMILIES) {
    const [prefix] = entry;
    const matches = prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`);
    if (matches && (!best || prefix.length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** Which routes a listener serves: `platform` (all but agents), `agents`, or `all`. */
export type Surface = 'all' | 'platform' | 'agents';

/** Every route a server with this surface registers, with its body limit. */
export function routeTables(surface: Surface = 'all'): Route[] {
  return [
    ...family(accountRoutes, BODY_LIMITS.admin, { tag: 'Account', extension: true }),
    ...family(keyRoutes, BODY_LIMITS.admin, { tag: 'Account', extension: true }),
    ...(surface !== 'agents'
      ? [
          ...family(adminRoutes, BODY_LIMITS.admin, { tag: 'Admin', extension: true }),
          ...family(adminKeyRoutes, BODY_LIMITS.admin, { tag: 'Admin', extension: true }),
          ...family(documentsRoutes, BODY_LIMITS.documents, { tag: 'Files and vector stores' }),
          ...family(searchRoutes, BODY_LIMITS.documents, { tag: 'Files and vector stores' }),
          // Mixed files: chat completions, responses and conversation items set the chat limit themselves.
          ...family(modelsRoutes, BODY_LIMITS.default, { tag: 'Models' }),
          ...family(responsesRoutes, BODY_LIMITS.default, { tag: 'Responses' }),
          ...family(assistantsRoutes, BODY_LIMITS.assistants, { tag: 'Assistants' }),
          ...family(toolsRoutes, BODY_LIMITS.tools, { tag: 'Data tools', extension: true }),
          ...family(mcpRoutes, BODY_LIMITS.default, { tag: 'MCP', extension: true }),
          ...family(batchesRoutes, BODY_LIMITS.default, { tag: 'Batch' }),
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
