import type { BatchSettings } from '../config';
import { InvalidRequestError, NotFoundError } from '../errors';
import { currentCallContext } from '../internal/call-context';
import { newId } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { BatchRunner } from './batch-runner';
import { type BatchesRepository, SqlBatchesRepository, toBatch } from './batches-repository';
import { type BatchBilling, USAGE_ONLY_BILLING } from './billing';
import type { BatchEndpointCalls } from './endpoints';
import type { BatchFiles } from './output-files';
import type { Batch, BatchCreateParams, BatchesPage, BatchListParams } from './wire/batches';

export interface BatchesOptions {
  db: SqlClient;
  files: BatchFiles;
  /** The core methods behind the synchronous routes (the composition root wires them). */
  endpoints: BatchEndpointCalls;
  settings: BatchSettings;
  leaseMs: number;
  log: Logger;
  /** Holds and charges of spend control; default: usage is recorded per line as the synchronous calls do, nothing held. */
  billing?: BatchBilling;
}

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

/**
 * `fathom.batches` (OpenAI's `batches`): a JSONL file of requests run in the background against
 * `/v1/chat/completions`, `/v1/responses` or `/v1/embeddings`, answered in an output and an error file.
 * A batch belongs to the account that created it: another account's id is a 404.
 */
export class Batches {
  readonly #repository: BatchesRepository;
  readonly #runner: BatchRunner;
  readonly #files: BatchFiles;
  readonly #settings: BatchSettings;

  constructor(options: BatchesOptions) {
    this.#repository = new SqlBatchesRepository(options.db);
    this.#files = options.files;
    this.#settings = options.settings;
    this.#runner = new BatchRunner({
      repository: this.#repository,
      files: options.files,
      endpoints: options.endpoints,
      billing: options.billing ?? USAGE_ONLY_BILLING,
      settings: options.settings,
      leaseMs: options.leaseMs,
      log: options.log,
    });
  }

  /**
   * Creates a batch (`validating`) and queues it: 404 for an input file the account does not have, 400
   * for one whose purpose is not `batch`. The file's lines are checked in the background: a file that
   * cannot run ends the batch `failed` with `errors`.
   */
  async create(accountId: string, params: BatchCreateParams): Promise<Batch> {
    const file = await this.#files.retrieve(accountId, params.input_file_id);
    if (file.purpose !== 'batch') {
      throw new InvalidRequestError(
        `Invalid 'input_file_id': the file '${file.id}' has purpose '${file.purpose}'; upload the requests with purpose 'batch'.`,
        'input_file_id',
        'invalid_value',
      );
    }
    const now = Date.now();
    const createdAt = Math.floor(now / 1000);
    const id = newId('batch_');
    await this.#repository.insert({
      id,
      account_id: accountId,
      endpoint: params.endpoint,
      input_file_id: file.id,
      completion_window: params.completion_window,
      metadata: params.metadata ? JSON.stringify(params.metadata) : null,
      output_expires_seconds: params.output_expires_after?.seconds ?? null,
      created_ms: now,
      created_at: createdAt,
      expires_at: createdAt + Math.ceil(this.#settings.windowSeconds),
      deadline_ms: now + this.#settings.windowSeconds * 1000,
      key_id: currentCallContext()?.keyId ?? null,
    });
    this.#runner.wake();
    return this.retrieve(accountId, id);
  }

  /** One batch of the account, its counts as recorded now. */
  async retrieve(accountId: string, batchId: string): Promise<Batch> {
    const row = await this.#repository.get(batchId);
    if (!row || row.account_id !== accountId) throw new NotFoundError('batch', batchId);
    return toBatch(row);
  }

  /** The account's batches, newest first. */
  list(accountId: string, query: BatchListParams = {}): Promise<BatchesPage> {
    return this.#repository.list(accountId, query);
  }

  /**
   * Cancels a batch that is validating or in progress: it is `cancelling` at once, its requests in flight
   * are stopped (on whichever process runs it), and it ends `cancelled` with the output of what finished.
   * Cancelling a batch already cancelling answers it as it is; a finalizing or finished one is a 400.
   */
  async cancel(accountId: string, batchId: string): Promise<Batch> {
    const batch = await this.retrieve(accountId, batchId);
    if (batch.status === 'cancelling' || batch.status === 'cancelled') return batch;
    if (!(await this.#repository.cancel(batchId, Math.floor(Date.now() / 1000)))) {
      const now = await this.retrieve(accountId, batchId);
      if (now.status === 'cancelling') return now;
      throw new InvalidRequestError(`Cannot cancel a batch with status '${now.status}'.`, null, 'invalid_state');
    }
    this.#runner.cancel(batchId);
    this.#runner.wake();
    return this.retrieve(accountId, batchId);
  }

  /** Resolves once the batch is finished (embedding apps and tests); polls the row. */
  async wait(accountId: string, batchId: string, timeoutMs = 60_000): Promise<Batch> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const batch = await this.retrieve(accountId, batchId);
      if (TERMINAL.has(batch.status)) return batch;
      if (Date.now() > deadline) throw new Error(`batch ${batchId} still ${batch.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Resolves once this process runs no batch (after its current claims). */
  idle(): Promise<void> {
    return this.#runner.idle();
  }

  /** Starts running batches: queued ones, and those a stopped process left. */
  start(): void {
    this.#runner.start();
  }

  /** Stops claiming, lets requests in flight finish briefly, and gives the running batches back. */
  close(): Promise<void> {
    return this.#runner.close();
  }
}
