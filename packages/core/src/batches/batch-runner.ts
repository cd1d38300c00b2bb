import { setMaxListeners } from 'node:events';
import type { Readable } from 'node:stream';
import type { BatchSettings } from '../config';
import { FathomError } from '../errors';
import { randomToken, nowSeconds } from '../internal/ids';
import { LeasedWorker, type TaskStopped, type TaskContext } from '../internal/leased-worker';
import type { Logger } from '../internal/logger';
import { retryWithBackoff } from '../transport';
import type { BatchBilling } from './billing';
import { type BatchesRepository, type BatchRow, type LineResult, NO_USAGE } from './batches-repository';
import { type BatchEndpointCalls, usageOf } from './endpoints';
import { type BatchFiles, writeOutputFiles } from './output-files';
import { type BatchBounds, type BatchLine, batchLines, validateInput } from './read-input';
import { UpstreamSlots, upstreamOf } from './upstream-slots';
import type { BatchEndpoint, BatchError } from './wire/batches';

export interface BatchRunnerOptions {
  repository: BatchesRepository;
  files: BatchFiles;
  endpoints: BatchEndpointCalls;
  billing: BatchBilling;
  settings: BatchSettings;
  leaseMs: number;
  log: Logger;
}

/** Batches one process runs at once (each with `FATHOM_BATCH_CONCURRENCY` requests in flight). */
const BATCHES_PER_PROCESS = 4;
/** Claims of a batch before it is given up (its process kept dying while running it). */
const MAX_ATTEMPTS = 5;
/** How often a running batch reads its status, to see a cancel made on another process. */
const STATUS_POLL_MS = 500;
/** At shutdown, how long requests in flight may finish before they are aborted. */
const SHUTDOWN_GRACE_MS = 5000;

const SERVER_ERROR = {
  message: 'The server had an error while processing your request.',
  type: 'server_error',
  param: null,
  code: 'server_error',
};

/** The status and body the route would answer for a failure (FathomError), else an internal 500 that shows nothing of it. */
function errorAnswer(error: unknown): { status: number; body: unknown } {
  if (error instanceof FathomError) return { status: error.status, body: error.toJSON() };
  return { status: 500, body: { error: SERVER_ERROR } };
}

/** An error-file line for a request that got no answer (never sent, or its answer was lost). */
function unanswered(customId: string, code: string, message: string): LineResult {
  const output = { id: `batch_req_${randomToken(24)}`, custom_id: customId, response: null, error: { code, message } };
  return { state: 'failed', output: JSON.stringify(output), usage: NO_USAGE };
}

const EXPIRED = 'This request could not be executed before the completion window expired.';
const INTERRUPTED =
  'The server stopped while this request was in flight; it was not sent again (a request of a batch is sent at most once), so it may or may not have run upstream.';
const CANCELLED = 'The batch was cancelled while this request was in flight; its answer was not recorded.';

type Outcome = 'done' | 'expired' | 'cancelled' | 'stopped' | 'file-gone';

/**
 * Runs batches from the durable lease queue (any process sharing the database takes over a batch whose
 * process died): validates the input file, sends its requests through the same core methods as the
 * synchronous routes with bounded concurrency and retries on upstream 429/5xx, records each answer
 * durably (the counts and usage in the same transaction), then writes the output and error files.
 * A request is recorded as sent before it is sent; a run that takes over never sends a line that was
 * sent or answered before, so no request reaches the upstream twice.
 */
export class BatchRunner {
  readonly #options: BatchRunnerOptions;
  readonly #worker: LeasedWorker<BatchRow>;
  /** Requests in flight per upstream across every batch of this process (a retry's wait holds no slot). */
  readonly #slots: UpstreamSlots;

  constructor(options: BatchRunnerOptions) {
    this.#options = options;
    this.#slots = new UpstreamSlots(options.settings.concurrency);
    this.#worker = new LeasedWorker<BatchRow>({
      name: 'batches',
      queue: options.repository.queue(),
      run: (row, context) => this.#run(row, context),
      exhausted: async (row, context) => {
        const fresh = await options.repository.get(row.id);
        if (!fresh) return;
        await this.#finalize(fresh, context.owner, 'failed', [
          {
            code: 'batch_interrupted',
            message: `The batch was interrupted ${row.attempts - 1} times by a stopped server and was not resumed again; the output files hold what finished.`,
            param: null,
            line: null,
          },
        ]);
      },
      concurrency: BATCHES_PER_PROCESS,
      maxAttempts: MAX_ATTEMPTS,
      leaseMs: options.leaseMs,
      log: options.log,
    });
  }

  start(): void {
    this.#worker.start();
  }

  wake(): void {
    this.#worker.wake();
  }

  /** Stops the batch's requests at once when this process runs it (a cancel). */
  cancel(id: string): void {
    this.#worker.cancel(id);
  }

  idle(): Promise<void> {
    return this.#worker.idle();
  }

  close(): Promise<void> {
    return this.#worker.close();
  }

  async #run(task: BatchRow, context: TaskContext): Promise<void> {
    const { repository } = this.#options;
    let row = await repository.get(task.id);
    if (!row) return;
    if (row.status === 'validating') {
      if (!(await this.#validate(row, context))) return;
      row = (await repository.get(task.id))!;
    }
    if (row.status === 'in_progress') {
      const outcome = await this.#execute(row, context);
      if (outcome === 'stopped') return;
      if (outcome === 'file-gone') {
        const message = `The input file '${row.input_file_id}' was deleted while the batch ran; the output files hold what finished.`;
        await this.#finalize(row, context.owner, 'failed', [{ code: 'invalid_file', message, param: 'input_file_id', line: null }]);
        return;
      }
      row = (await repository.get(task.id))!;
      if (row.status === 'in_progress' && outcome === 'expired') {
        await this.#finalize(row, context.owner, 'expired');
        return;
      }
      if (row.status === 'in_progress') {
        await repository.startFinalizing(row.id, context.owner, nowSeconds());
        row = (await repository.get(task.id))!;
      }
    }
    if (row.status === 'finalizing') await this.#finalize(row, context.owner, 'completed');
    else if (row.status === 'cancelling') await this.#finalize(row, context.owner, 'cancelled');
  }

  /** Reads the input file once; a file that cannot run fails the batch with its errors. Answers whether to go on. */
  async #validate(row: BatchRow, context: TaskContext): Promise<boolean> {
    const { repository, files, billing } = this.#options;
    let errors: BatchError[];
    let total = 0;
    let model: string | null = null;
    let bounds: BatchBounds = { inputTokensAtMost: 0, outputTokens: 0, unboundedLines: 0 };
    try {
      const { stream } = await files.content(row.account_id, row.input_file_id);
      ({ errors, total, model, bounds } = await validateInput(stream, row.endpoint as BatchEndpoint));
    } catch (error) {
      if (!(error instanceof FathomError)) throw error;
      errors = [{ code: 'invalid_file', message: error.message, param: 'input_file_id', line: null }];
    }
    if (context.signal.aborted && (context.signal.reason as TaskStopped).reason !== 'cancelled') return false;
    if (errors.length === 0 && model !== null) {
      try {
        await billing.hold(row, model, bounds);
      } catch (error) {
        if (!(error instanceof FathomError)) throw error;
        errors = [{ code: error.code, message: error.message, param: null, line: null }];
      }
    }
    if (errors.length > 0) {
      await repository.finish(row.id, context.owner, 'failed', nowSeconds(), errors);
      return false;
    }
    // False when the batch was cancelled meanwhile: the caller reads the status and ends it.
    await repository.startProgress(row.id, context.owner, total, model, nowSeconds());
    return true;
  }

  /** Sends the requests not sent yet, `concurrency` at a time, until the file ends, the window closes, or the run stops. */
  async #execute(row: BatchRow, context: TaskContext): Promise<Outcome> {
    const { repository, files, settings } = this.#options;
    const done = await repository.lineStates(row.id);
    // In flight when a process stopped: maybe answered upstream, never recorded. Not sent again.
    for (const sent of await repository.sentLines(row.id)) {
      await repository.finishSent(row.id, sent.custom_id, unanswered(sent.custom_id, 'batch_interrupted', INTERRUPTED));
    }
    let stream: Readable;
    try {
      ({ stream } = await files.content(row.account_id, row.input_file_id));
    } catch (error) {
      if (error instanceof FathomError && error.status === 404) return 'file-gone';
      throw error;
    }
    const calls = new AbortController();
    // Every request in flight (and its retry wait) listens to it.
    setMaxListeners(settings.concurrency * 4 + 16, calls.signal);
    // Set from callbacks (the task's signal, the status watch, a failed request): an object, read fresh each time.
    const run: { stop: Outcome | null; failure?: unknown } = { stop: null };
    const onAbort = () => {
      const reason = (context.signal.reason as TaskStopped | undefined)?.reason;
      run.stop = reason === 'cancelled' ? 'cancelled' : 'stopped';
      if (reason === 'shutdown') setTimeout(() => calls.abort(), SHUTDOWN_GRACE_MS).unref();
      else calls.abort();
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    if (context.signal.aborted) onAbort();
    // A cancel made on another process is seen in the row.
    const watch = setInterval(() => {
      repository.get(row.id).then(
        (fresh) => {
          if (fresh?.status === 'cancelling' && run.stop === null) {
            run.stop = 'cancelled';
            calls.abort();
          }
        },
        () => {},
      );
    }, STATUS_POLL_MS);
    watch.unref();
    let expired = false;
    const inFlight = new Set<Promise<void>>();
    try {
      for await (const line of batchLines(stream)) {
        if (run.stop) break;
        if (done.has(line.customId)) continue;
        if (Date.now() >= row.deadline_ms) {
          expired = true;
          await repository.recordUnsent(row.id, line.customId, line.line, unanswered(line.customId, 'batch_expired', EXPIRED));
          continue;
        }
        while (inFlight.size >= settings.concurrency) await Promise.race(inFlight);
        if (run.stop) break;
        const task: Promise<void> = this.#send(row, line, calls.signal)
          .catch((error) => {
            run.failure ??= error;
            run.stop = 'stopped';
            calls.abort();
          })
          .finally(() => inFlight.delete(task));
        inFlight.add(task);
      }
      await Promise.all(inFlight);
    } finally {
      clearInterval(watch);
      context.signal.removeEventListener('abort', onAbort);
    }
    if (run.failure) throw run.failure;
    if (run.stop) return run.stop;
    return expired ? 'expired' : 'done';
  }

  /** Sends one request (recorded as sent first), retrying upstream 429/5xx, and records its answer or error. */
  async #send(row: BatchRow, line: BatchLine, signal: AbortSignal): Promise<void> {
    const { repository, endpoints, settings, billing, log } = this.#options;
    // Waits for room in the key's rpm/tpm window before the line is marked sent (a line waiting when its
    // process stops is sent by the next run); a cancel while it waits leaves it unsent.
    let countedAhead: number;
    try {
      countedAhead = await billing.admitLine(row, { inputBytes: Buffer.byteLength(JSON.stringify(line.body)) }, signal);
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    await repository.markSent(row.id, line.customId, line.line);
    const call = endpoints[row.endpoint as BatchEndpoint];
    const output = { id: `batch_req_${randomToken(24)}`, custom_id: line.customId };
    const requestId = `req_${randomToken(24)}`;
    const upstream = upstreamOf(line.body);
    let result: LineResult;
    try {
      const body = await billing.runLine(
        row,
        requestId,
        () =>
          retryWithBackoff(() => this.#slots.run(upstream, signal, () => call(row.account_id, line.body, signal)), {
            maxRetries: settings.maxRetries,
            initialDelayMs: settings.retryDelayMs,
            signal,
          }),
        countedAhead,
      );
      result = {
        state: 'completed',
        output: JSON.stringify({ ...output, response: { status_code: 200, request_id: requestId, body }, error: null }),
        usage: usageOf(body),
      };
    } catch (error) {
      // Cancelled or taken over: the line stays `sent`; the cancel (or the next run) records it.
      if (signal.aborted) return;
      if (!(error instanceof FathomError)) log.error(`batches: request ${line.customId} of ${row.id} failed unexpectedly`, error);
      const { status, body } = errorAnswer(error);
      result = {
        state: 'failed',
        output: JSON.stringify({ ...output, response: { status_code: status, request_id: requestId, body }, error: null }),
        usage: NO_USAGE,
      };
    }
    if (await repository.finishSent(row.id, line.customId, result))
      await billing.settleLine(row, { customId: line.customId, requestId, usage: result.usage });
  }

  /** Records what was left in flight, writes the output and error files, and ends the batch `status`. */
  async #finalize(
    row: BatchRow,
    owner: string,
    status: 'completed' | 'expired' | 'cancelled' | 'failed',
    errors?: BatchError[],
  ): Promise<void> {
    const { repository, files, billing } = this.#options;
    for (const sent of await repository.sentLines(row.id)) {
      const result =
        status === 'cancelled'
          ? unanswered(sent.custom_id, 'batch_cancelled', CANCELLED)
          : unanswered(sent.custom_id, 'batch_interrupted', INTERRUPTED);
      await repository.finishSent(row.id, sent.custom_id, result);
    }
    const fresh = (await repository.get(row.id))!;
    await writeOutputFiles(files, repository, fresh, owner);
    if (await repository.finish(row.id, owner, status, nowSeconds(), errors)) await billing.release(fresh);
  }
}
