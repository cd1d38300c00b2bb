// STUB (owner: documents helper): files, vector stores, store files, batches routes.
import type { Route } from '../route';
export const documentsRoutes: Route[] = [];
