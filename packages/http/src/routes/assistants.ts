// STUB (owner: assistants helper): assistants, threads, messages, runs, steps.
import type { Route } from '../route';
export const assistantsRoutes: Route[] = [];
