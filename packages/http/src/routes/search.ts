// STUB (owner: documents helper): POST /v1/vector_stores/:id/search.
import type { Route } from '../route';
export const searchRoutes: Route[] = [];
