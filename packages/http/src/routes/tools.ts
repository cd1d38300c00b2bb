// STUB (owner: jobs helper): data tools catalog, start, jobs.
import type { Route } from '../route';
export const toolsRoutes: Route[] = [];
