import { LeasedWorker, type TaskContext, TaskStopped } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { StoreSearcher } from '../vector';
import { buildContext, type ContextSources } from './context';
import { type EventLog, TERMINAL_EVENTS } from './event-log';
import type { ResponseRequest } from './read-request';
import { responseError } from './response-error';
import type { StoredResponse } from './responses-repository';
import { type ResponseObject, runResponse, viewResponse } from './run-response';
import { type OutcomeStore, storeOutcome } from './store-outcome';

export interface BackgroundResponsesOptions {
  store: OutcomeStore;
  sources: ContextSources;
  events: EventLog;
  chat: ChatAdapterContract;
  searcher?: StoreSearcher;
  contextTokens: number;
  log: Logger;
  /** Background responses run at once by this process. */
  concurrency: number;
  leaseMs?: number;
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
      run: (task, context) => this.#run(task, context),
      exhausted: (task) => this.#exhausted(task),
      concurrency: options.concurrency,
      leaseMs: options.leaseMs,
      log: options.log,
    });
  }

  start(): void {
    this.#worker.start();
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
    const request = task.request as ResponseRequest;
    const response: ResponseObject = { ...task.body, status: 'in_progress', output: [], error: null };
    const { run, firstSequence } = await store.responses.nextRun(task.id);
    await store.responses.clearOutput(task.id);
    const log = events.writer(task.id, run, context.owner);
    let sequence = firstSequence;
    try {
      const built = await buildContext(sources, task.accountId, request, this.#options.contextTokens);
      await store.responses.update(task.id, 'in_progress', response, context.owner);
      const deps = { chat: this.#options.chat, searcher: this.#options.searcher };
      for await (const event of runResponse(deps, request, built.messages, response, {
        accountId: task.accountId,
        signal: context.signal,
        firstSequence,
      })) {
        sequence = event.sequence_number + 1;
        if (TERMINAL_EVENTS.has(event.type)) {
          await log.flush();
          if (await storeOutcome(store, task.accountId, request, response, context.owner, { run, event })) events.notify(task.id);
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
    }
  }

  /** A response claimed more than three times (its processes kept dying) ends failed instead of running again. */
  async #exhausted(task: StoredResponse): Promise<void> {
    const error = { code: 'server_error', message: 'The servers running this response stopped several times; it was not run again.' };
    await this.#options.store.responses.update(task.id, 'failed', { ...task.body, status: 'failed', error });
    this.#options.events.notify(task.id);
  }
}
