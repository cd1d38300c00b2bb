// STUB (owner: models helper): chat completions, models, embeddings, responses, usage.
import type { Route } from '../route';
export const modelsRoutes: Route[] = [];
