import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { siblingWorkerUrl, workerExecArgv } from '../internal/worker-options';
import { renderSuccessBody, type RenderTask } from './format-response';

/** Renders to '' at once (its text is not JSON and it may keep nothing). */
const WARM_UP: RenderTask = { text: '', mapping: [], maxChars: 0, maxMatches: 0 };

export interface MappingPoolOptions {
  /** Deadline of one mapping, in ms, once a worker is running; default 2000. */
  timeoutMs?: number;
  /** Heap cap of the worker, in MB; default 256 (at least 32). */
  memoryMb?: number;
}

/**
 * Evaluates `responseMapping` paths that can visit a response combinatorially (`$..*..*`) in a worker
 * thread: the event loop never runs them, each has a deadline and a heap cap, and a worker that blows
 * either is replaced. The pool starts on first use and its idle threads do not keep the process alive.
 */
export class MappingPool {
  readonly timeoutMs: number;
  readonly memoryMb: number;
  #pool: Piscina | undefined;

  constructor(options: MappingPoolOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.memoryMb = Math.max(32, options.memoryMb ?? 256);
  }

  /**
   * The rendered result. When the mapping cannot finish in time or memory it is not applied: the full
   * response is rendered instead (bounded, as always), with a note saying why.
   */
  async render(task: RenderTask, signal?: AbortSignal): Promise<string> {
    // An empty task first waits for a started worker (a cold start loads the module, and under tsx
    // compiles it), so the deadline measures the mapping rather than the thread's start-up.
    await this.pool().run(WARM_UP, signal ? { signal } : {});
    const deadline = AbortSignal.timeout(this.timeoutMs);
    try {
      return (await this.pool().run(task, { signal: signal ? AbortSignal.any([signal, deadline]) : deadline })) as string;
    } catch (error) {
      if (signal?.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const reason = deadline.aborted
        ? `evaluating it took longer than ${this.timeoutMs} ms`
        : code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test((error as Error).message)
          ? `evaluating it needed more than ${this.memoryMb} MB of memory`
          : `evaluating it failed (${(error as Error).message})`;
      const note = `responseMapping was not applied: ${reason}, so the full response is shown. Paths with '..' or '*' over a large response are the usual cause.`;
      return renderSuccessBody({ ...task, mapping: [], notes: [note] });
    }
  }

  private pool(): Piscina {
    if (!this.#pool) {
      const filename = siblingWorkerUrl(import.meta.url, 'mapping.worker');
      this.#pool = new Piscina({
        filename: filename.href,
        execArgv: workerExecArgv(filename),
        minThreads: 0,
        maxThreads: Math.max(1, Math.min(2, availableParallelism())),
        idleTimeout: 10_000,
        resourceLimits: {
          maxOldGenerationSizeMb: this.memoryMb,
          maxYoungGenerationSizeMb: Math.max(2, Math.min(16, Math.floor(this.memoryMb / 16))),
        },
      });
    }
    return this.#pool;
  }

  async close(): Promise<void> {
    await this.#pool?.destroy();
    this.#pool = undefined;
  }
}
