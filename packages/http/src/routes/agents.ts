// STUB (owner: agents helper): agents API.
import type { Route } from '../route';
export const agentsRoutes: Route[] = [];
