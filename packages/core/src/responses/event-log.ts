import { EventEmitter } from 'node:events';
import type { ResponsesRepository } from './responses-repository';
import type { ResponsesEvent } from './run-response';

/** Stream events that end a response's stream. */
export const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * The stored stream of a background response: events are written in small batches (every 50 ms or
 * 100 events) so a client can follow or resume the stream from any process, and readers in this
 * process are woken at once instead of at their next poll.
 */
export class EventLog {
  readonly #repository: ResponsesRepository;
  readonly #wakeups = new EventEmitter();

  constructor(repository: ResponsesRepository) {
    this.#repository = repository;
    this.#wakeups.setMaxListeners(0);
  }

  /** A writer for one run of one response (`attempt` tells runs apart after a takeover). */
  writer(responseId: string, attempt: number): { push(event: ResponsesEvent): Promise<void>; flush(): Promise<void> } {
    let buffer: ResponsesEvent[] = [];
    let last = Date.now();
    const flush = async () => {
      if (buffer.length === 0) return;
      const batch = buffer;
      buffer = [];
      last = Date.now();
      await this.#repository.appendEvents(responseId, attempt, batch);
      this.#wakeups.emit(responseId);
    };
    return {
      async push(event) {
        buffer.push(event);
        if (buffer.length >= 100 || Date.now() - last >= 50 || TERMINAL_EVENTS.has(event.type)) await flush();
      },
      flush,
    };
  }

  /** Wakes readers of a response (its status changed). */
  notify(responseId: string): void {
    this.#wakeups.emit(responseId);
  }

  /** Resolves after `ms`, or earlier when events of the response are written in this process. */
  wait(responseId: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakeups.off(responseId, done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakeups.once(responseId, done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
