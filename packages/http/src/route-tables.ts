import { BODY_LIMITS } from './body-limits';
import type { Route } from './route';
import { accountRoutes } from './routes/account';
import { adminRoutes } from './routes/admin';
import { agentsRoutes } from './routes/agents';
import { assistantsRoutes } from './routes/assistants';
import { documentsRoutes } from './routes/documents';
import { modelsRoutes } from './routes/models';
import { responsesRoutes } from './routes/responses';
import { searchRoutes } from './routes/search';
import { toolsRoutes } from './routes/tools';

/** Routes of a file, each with the file's body limit unless it sets its own (the few that carry more). */
function family(routes: readonly Route[], bodyLimit: number): Route[] {
  return routes.map((route) => ({ ...route, bodyLimit: route.bodyLimit ?? bodyLimit }));
}

/** Which routes a listener serves: `platform` (all but agents), `agents`, or `all`. */
export type Surface = 'all' | 'platform' | 'agents';

/** Every route a server with this surface registers, with its body limit. */
export function routeTables(surface: Surface = 'all'): Route[] {
  return [
    ...family(accountRoutes, BODY_LIMITS.admin),
    ...(surface !== 'agents'
      ? [
          ...family(adminRoutes, BODY_LIMITS.admin),
          ...family(documentsRoutes, BODY_LIMITS.documents),
          ...family(searchRoutes, BODY_LIMITS.documents),
          // Mixed files: chat completions, responses and conversation items set the chat limit themselves.
          ...family(modelsRoutes, BODY_LIMITS.default),
          ...family(responsesRoutes, BODY_LIMITS.default),
          ...family(assistantsRoutes, BODY_LIMITS.assistants),
          ...family(toolsRoutes, BODY_LIMITS.tools),
        ]
      : []),
    ...(surface !== 'platform' ? family(agentsRoutes, BODY_LIMITS.agents) : []),
  ];
}
