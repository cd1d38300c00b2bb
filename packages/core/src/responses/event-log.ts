import { EventEmitter } from 'node:events';
import type { ResponsesRepository, ResponseStatus } from './responses-repository';
import type { ResponsesEvent } from './run-response';

/** Stream events that end a response's stream. */
export const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

const FINISHED: readonly ResponseStatus[] = ['completed', 'failed', 'cancelled', 'incomplete'];

/**
 * The stored stream of a background response: events are written in small batches (every 50 ms or
 * 100 events) so a client can follow or resume the stream from any process, and readers in this
 * process are woken at once instead of at their next poll.
 *
 * A response that is run again (its process died, or gave it back at shutdown) writes a new *run*: its
 * events are numbered after every event stored before, and each is stored with its run number. A
 * stream follows one run: when the events it would continue with belong to another run, it ends with an
 * `error` event instead of splicing the two (a client resuming with `starting_after` is told too).
 */
export class EventLog {
  readonly #repository: ResponsesRepository;
  readonly #wakeups = new EventEmitter();

  constructor(repository: ResponsesRepository) {
    this.#repository = repository;
    this.#wakeups.setMaxListeners(0);
  }

  /** A writer for one run of one response; it writes only while `owner` holds the response's lease. */
  writer(responseId: string, run: number, owner: string): { push(event: ResponsesEvent): Promise<void>; flush(): Promise<void> } {
    let buffer: ResponsesEvent[] = [];
    let last = Date.now();
    const flush = async () => {
      if (buffer.length === 0) return;
      const batch = buffer;
      buffer = [];
      last = Date.now();
      await this.#repository.appendEvents(responseId, run, batch, owner);
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

  /**
   * The stored events of a response after sequence number `after`, then the live ones until it ends (from
   * any process). The stream follows the run that wrote event `after` (a new stream: the newest run);
   * events of any other run end it with an `error` event.
   */
  async *follow(accountId: string, id: string, after: number, signal?: AbortSignal): AsyncGenerator<ResponsesEvent> {
    let last = after;
    let run = after >= 0 ? await this.#repository.runOf(id, after) : undefined;
    for (;;) {
      if (signal?.aborted) return;
      // The status first: a run stores its terminal event together with the final status.
      const stored = await this.#repository.get(accountId, id);
      let rows = await this.#repository.eventsAfter(id, last);
      if (run === undefined && rows.length) {
        // A stream that saw nothing yet follows the newest run; runs a later one replaced are skipped.
        const newest = Math.max(...rows.map((row) => row.attempt));
        rows = rows.filter((row) => row.attempt === newest);
        run = newest;
      }
      for (const { attempt, event } of rows) {
        if (attempt !== run) {
          yield {
            type: 'error',
            sequence_number: last + 1,
            code: 'server_error',
            message: 'The response was restarted (the server running it stopped); retrieve it to see its result.',
            param: null,
          };
          return;
        }
        last = event.sequence_number as number;
        yield event as ResponsesEvent;
        if (TERMINAL_EVENTS.has(event.type as string)) return;
      }
      if (!stored || FINISHED.includes(stored.status)) return;
      await this.#wait(id, 200, signal);
    }
  }

  /** Resolves after `ms`, or earlier when events of the response are written in this process. */
  #wait(responseId: string, ms: number, signal?: AbortSignal): Promise<void> {
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
