import { ServiceUnavailableError } from '../errors';
import { LeasedWorker, type TaskContext, TaskStopped } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { StoreSearcher } from '../vector';
import { buildContext, type ContextSources } from './context';
import { type EventLog, TERMINAL_EVENTS } from './event-log';
import type { McpDeps } from './mcp-run';
import type { McpToolSettings } from './mcp-request';
import type { ResponseRequest } from './read-request';
import { responseError } from './response-error';
import type { StoredResponse } from './responses-repository';
import { type ResponseObject, runResponse, viewResponse } from './run-response';
import { type OutcomeStore, storeOutcome } from './store-outcome';
import { RUN_WITHOUT_KEY, type RunAsOrigin } from '../spend';
import { withRequestId } from '../observability/request-context';
import { contextOfTraceparent, inSpan } from '../observability/tracing';

export interface BackgroundResponsesOptions {
  store: OutcomeStore;
  sources: ContextSources;
  events: EventLog;
  chat: ChatAdapterContract;
  searcher?: StoreSearcher;
  mcp?: McpDeps;
  /** The `mcp` tools with their headers, by response id (never stored: a response taken over by another process runs without them). */
  mcpSecrets: Map<string, McpToolSettings[]>;
  contextTokens: number;
  log: Logger;
  /** Background responses run at once by this process. */
  concurrency: number;
  leaseMs?: number;
  /** Runs the response charged to the key that created it (its budget, allow-list and tpm_limit). */
  runAsOrigin?: RunAsOrigin;
}

/**
 * The leased queue of `background: true` responses: any process sharing the database claims them, runs
 * them with their stream events stored as they come, and takes over those of a process that stopped
 * (running them again: a new run, whose events are numbered after the earlier run's).
 */
export class BackgroundResponses {
  readonly #options: BackgroundResponsesOptions;
  readonly #worker: LeasedWorker<StoredResponse>;

  constructor(options: BackgroundResponsesOptions) {
    this.#options = options;
    this.#worker = new LeasedWorker<StoredResponse>({
      name: 'background responses',
      queue: options.store.responses.queue(),
      // Each run is the work of the request that queued it: its request id in log lines, its trace continued,
      // its model calls charged to that request's key (never to the key of whichever request woke the worker).
      run: (task, context) =>
        (options.runAsOrigin ?? RUN_WITHOUT_KEY)(
          { accountId: task.accountId, keyId: task.keyId ?? null, requestId: task.requestId, api: 'responses' },
          () =>
            withRequestId(task.requestId, () =>
              inSpan(
                'response.background',
                { 'fathom.response_id': task.id, 'fathom.attempt': task.attempts },
                () => this.#run(task, context),
                contextOfTraceparent(task.traceparent),
              ),
            ),
        ),
      exhausted: (task) => this.#exhausted(task),
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
      log: options.log,
    });
  }

  start(): void {
    this.#worker.start();
  }

  /** A lease of this process for a row inserted already claimed (`adopt`). */
  newLease(): { owner: string; until: number } {
    return { owner: this.#worker.owner, until: Date.now() + (this.#options.leaseMs ?? 30_000) };
  }

  /**
   * Runs here a response this process inserted already leased to itself (one whose `mcp` headers only
   * this process holds): no other process claims it while this one lives. False when closing.
   */
  adopt(task: StoredResponse): boolean {
    return this.#worker.adopt(task);
  }

  /** Looks for work now (a response was queued). */
  wake(): void {
    this.#worker.wake();
  }

  /** Stops the run of a response in this process (cancel, delete). */
  cancel(id: string): void {
    this.#worker.cancel(id);
  }

  idle(): Promise<void> {
    return this.#worker.idle();
  }

  close(): Promise<void> {
    return this.#worker.close();
  }

  /** One run: events stored as they come, the outcome written only while the lease holds. */
  async #run(task: StoredResponse, context: TaskContext): Promise<void> {
    const { store, events, sources } = this.#options;
    const stored = task.request as ResponseRequest;
    const secrets = this.#options.mcpSecrets.get(task.id);
    const request: ResponseRequest = secrets ? { ...stored, mcp: secrets } : { ...stored, mcp: stored.mcp ?? [] };
    const response: ResponseObject = { ...task.body, status: 'in_progress', output: [], error: null };
    const { run, firstSequence } = await store.responses.nextRun(task.id);
    await store.responses.clearOutput(task.id);
    const log = events.writer(task.id, run, context.owner);
    let sequence = firstSequence;
    try {
      const withheld = secrets ? [] : (stored.mcp ?? []).filter((tool) => tool.withheldHeaders);
      if (withheld.length) throw new ServiceUnavailableError(credentialsGone(withheld.map((tool) => tool.serverLabel)));
      const built = await buildContext(sources, task.accountId, request, this.#options.contextTokens);
      await store.responses.update(task.id, 'in_progress', response, context.owner);
      const deps = { chat: this.#options.chat, searcher: this.#options.searcher, mcp: this.#options.mcp };
      for await (const event of runResponse(deps, request, built.messages, response, {
        accountId: task.accountId,
        context: built,
        signal: context.signal,
        firstSequence,
      })) {
        sequence = event.sequence_number + 1;
        if (TERMINAL_EVENTS.has(event.type)) {
          await log.flush();
          if (await storeOutcome(store, task.accountId, request, response, context.owner, { run, event })) events.notify(task.id);
          this.#options.mcpSecrets.delete(task.id);
          return;
        }
        await log.push(event);
      }
      await log.flush();
    } catch (error) {
      await log.flush().catch(() => {});
      if (context.signal.reason instanceof TaskStopped) throw context.signal.reason;
      response.status = 'failed';
      response.error = responseError(error, this.#options.log, task.id);
      const view = viewResponse(response, request.include);
      const failed = { type: 'response.failed', sequence_number: sequence, response: view };
      const stored = await store.db.transaction(async (tx) => {
        const responses = store.responses.in(tx);
        if (!(await responses.update(task.id, 'failed', view, context.owner))) return false;
        await responses.appendEvents(task.id, run, [failed], context.owner);
        return true;
      });
      if (stored) events.notify(task.id);
      this.#options.mcpSecrets.delete(task.id);
    }
  }

  /** A response claimed more than three times (its processes kept dying) ends failed instead of running again. */
  async #exhausted(task: StoredResponse): Promise<void> {
    const error = { code: 'server_error', message: 'The servers running this response stopped several times; it was not run again.' };
    await this.#options.store.responses.update(task.id, 'failed', { ...task.body, status: 'failed', error });
    this.#options.events.notify(task.id);
  }
}

/**
 * Why a response taken over from another process ends failed: its `mcp` headers and `authorization` lived
 * only in the memory of the process that accepted it (they are never stored), so its servers are not
 * called without them.
 */
export function credentialsGone(labels: string[]): string {
  return (
    `The headers and authorization of the mcp tools (server_label ${labels.map((label) => `'${label}'`).join(', ')}) were kept ` +
    'only in the memory of the server that accepted this background response, and that server stopped before it finished; ' +
    'they are never stored, so the response was not run again without them. Send the request again.'
  );
}
