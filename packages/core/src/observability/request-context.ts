import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';

/** What Fathom knows of the request a piece of work serves. */
interface RequestScope {
  requestId: string;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `fn` as the work of request `requestId`: log lines written meanwhile carry it, and stored objects
 * it creates (responses…) record it, so an operator goes from a row or a bill to the request's log lines.
 */
export function withRequestId<T>(requestId: string | null | undefined, fn: () => T): T {
  if (!requestId) return scopes.exit(fn);
  return scopes.run({ requestId }, fn);
}

/** The id of the request the running code serves (`req_…`), or null in background work that has none. */
export function currentRequestId(): string | null {
  return scopes.getStore()?.requestId ?? null;
}

/**
 * Runs `fn` outside any request and trace: a worker woken by a request must not attribute the other
 * tasks it then runs to that request (each task restores its own request id and trace).
 */
export function detached<T>(fn: () => T): T {
  return scopes.exit(() => context.with(ROOT_CONTEXT, fn));
}
