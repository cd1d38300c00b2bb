/**
 * One event of a run as the loop emits it (`thread.run.created`, `thread.message.delta`…). The events a
 * stream answers are typed `RunEvent` (`wire/stream-events.ts`); the HTTP tests check each
 * one against that schema.
 */
export interface RunEvent {
  event: string;
  data: unknown;
}

/** Run events after which a stream ends: the run finished, or paused for tool outputs. */
const STREAM_END = new Set([
  'thread.run.completed',
  'thread.run.failed',
  'thread.run.cancelled',
  'thread.run.expired',
  'thread.run.incomplete',
  'thread.run.requires_action',
]);

/** An unbounded queue read as an async iterable; ends after a stream-ending event or `close()`. */
class EventQueue implements AsyncIterable<RunEvent> {
  private readonly items: RunEvent[] = [];
  private wake: (() => void) | null = null;
  private closed = false;

  constructor(private readonly onDone: () => void) {}

  push(event: RunEvent): void {
    if (this.closed) return;
    this.items.push(event);
    if (STREAM_END.has(event.event)) this.closed = true;
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    try {
      while (true) {
        const next = this.items.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
      }
    } finally {
      this.closed = true;
      this.onDone();
    }
  }
}

/** Fan-out of each run's events to the streams watching it (none, usually: runs execute headless). */
export class RunEvents {
  private readonly watchers = new Map<string, Set<EventQueue>>();

  /** Starts collecting the events of `runId`; iterate the result to read them. */
  watch(runId: string): EventQueue {
    const queue: EventQueue = new EventQueue(() => {
      const set = this.watchers.get(runId);
      set?.delete(queue);
      if (set && set.size === 0) this.watchers.delete(runId);
    });
    if (!this.watchers.has(runId)) this.watchers.set(runId, new Set());
    this.watchers.get(runId)!.add(queue);
    return queue;
  }

  /** Whether any stream is reading this run's events right now. */
  watching(runId: string): boolean {
    return (this.watchers.get(runId)?.size ?? 0) > 0;
  }

  emit(runId: string, event: string, data: unknown): void {
    const set = this.watchers.get(runId);
    if (!set) return;
    // Snapshot the object: later mutations of the run or step must not change an event already queued.
    const frozen = { event, data: structuredClone(data) };
    for (const queue of set) queue.push(frozen);
  }

  /**
   * Ends the streams of one run with an `error` event (data: OpenAI's error object; the SDK raises it), when its
   * execution stopped in this process and another process goes on with it.
   */
  end(runId: string, message: string): void {
    const error = { event: 'error', data: { message, type: 'server_error', param: null, code: 'run_moved' } };
    for (const queue of this.watchers.get(runId) ?? []) {
      queue.push(error);
      queue.close();
    }
    this.watchers.delete(runId);
  }

  /** Ends every watcher (server shutdown). */
  closeAll(): void {
    for (const set of this.watchers.values()) for (const queue of set) queue.close();
    this.watchers.clear();
  }
}

export type { EventQueue };
