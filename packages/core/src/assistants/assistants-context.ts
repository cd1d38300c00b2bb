import { InvalidRequestError, NotFoundError } from '../errors';
import type { RunDeps } from './run-context';
import type { RunWorker } from './run-worker';
import type { ThreadStores } from './thread-stores';
import type { Assistant, Thread } from './types';

/**
 * What the sub-resources of the assistants capability (`Assistants`, `Threads` with its messages, runs
 * and steps) share: the repositories and collaborators of the run loop, the run worker executing runs in
 * this process, and the document stores of threads. Built once by `createAssistants`.
 */
export interface AssistantsContext {
  deps: RunDeps;
  /** Checks store and file ids and indexes attachments; without it ids are not checked and attachments are not indexed. */
  stores?: ThreadStores;
  worker: RunWorker;
  /** Seconds a run may take (and wait in `requires_action`) before it expires. */
  expirySeconds: number;
}

/** The account's assistant, or 404 naming `param` (an id of another account answers like an unknown one). */
export async function requireAssistant(
  context: AssistantsContext,
  accountId: string,
  id: string,
  param: string | null = null,
): Promise<Assistant> {
  const assistant = await context.deps.assistants.get(accountId, id);
  if (!assistant) throw new NotFoundError('assistant', id, param);
  return assistant;
}

/** The account's thread, or 404. */
export async function requireThread(context: AssistantsContext, accountId: string, id: string): Promise<Thread> {
  const thread = await context.deps.threads.getThread(accountId, id);
  if (!thread) throw new NotFoundError('thread', id);
  return thread;
}

/** 400 `thread_busy`: a thread takes no message and no other run while a run is active. */
export function threadBusy(action: string, threadId: string, runId: string): InvalidRequestError {
  return new InvalidRequestError(`Can't ${action} ${threadId} while a run ${runId} is active.`, null, 'thread_busy');
}

export async function assertNoActiveRun(context: AssistantsContext, threadId: string, action: string): Promise<void> {
  const active = await context.deps.runs.activeRunOf(threadId);
  if (active) throw threadBusy(action, threadId, active.id);
}
