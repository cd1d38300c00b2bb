import { InvalidRequestError, NotFoundError, ServiceUnavailableError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { SqlClient } from '../storage';
import type { StoreSearcher } from '../vector';
import { BackgroundResponses } from './background-responses';
import { buildContext, checkContext, type ContextSources } from './context';
import { type ConversationsRepository, SqlConversationsRepository } from './conversations-repository';
import { EventLog, TERMINAL_EVENTS } from './event-log';
import { type ForegroundLease, ForegroundLeases, STOPPED_ERROR } from './foreground-leases';
import { checkOwnership } from './ownership';
import { responseError } from './response-error';
import { ResponseInputItems } from './input-items';
import { type ApprovalClaim, checkMcpApprovals, claimApprovals, hasApprovalResponses } from './mcp-approvals';
import type { McpDeps } from './mcp-run';
import type { McpToolSettings } from './mcp-request';
import { hasMcpSecrets, type ResponseRequest, readResponseRequest, withoutMcpSecrets } from './read-request';
import { type ResponsesRepository, type ResponseStatus, SqlResponsesRepository, type StoredResponse } from './responses-repository';
import { type ResponseObject, type ResponsesEvent, runResponse, viewResponse } from './run-response';
import { type OutcomeStore, storeOutcome } from './store-outcome';
import type { FileContents } from './to-messages';
import { currentCallContext } from '../internal/call-context';
import type { RunAsOrigin } from '../spend';
import { currentRequestId } from '../observability/request-context';
import { currentTraceparent } from '../observability/tracing';
import {
  includeOf,
  type Response,
  type ResponseCreateParams,
  type ResponseDeleted,
  type ResponseRetrieveParams,
  type ResponseStreamEvent,
} from './wire';

export interface ResponsesOptions {
  db: SqlClient;
  chat: ChatAdapterContract;
  searcher?: StoreSearcher;
  /** Reads `input_file` and `input_image` file parts; without it they answer 400. */
  files?: FileContents;
  log: Logger;
  /** Lease of a background response, and of a stored foreground one; default 30 s (`FATHOM_LEASE_SECONDS`). */
  leaseMs?: number;
  /** Background responses run at once by this process; default 8. */
  concurrency?: number;
  /** Tokens `truncation: "auto"` keeps; default 128,000 (`FATHOM_CONTEXT_TOKENS`). */
  contextTokens?: number;
  responses?: ResponsesRepository;
  conversations?: ConversationsRepository;
  /** The `mcp` tool: the egress guard's fetch and the operator's servers (`FATHOM_MCP_SERVERS`); without it the tool answers 400. */
  mcp?: McpDeps;
  /** Runs a background response charged to the key that created it (spend control); default: no key. */
  runAsOrigin?: RunAsOrigin;
}

/** What `create` answers: the response object, or its stream events. */
export type CreateResult =
  | { response: Response; events?: undefined }
  | { events: AsyncIterable<ResponseStreamEvent>; response?: undefined };

/**
 * The wire form of what core builds as plain objects (`ResponseObject`, `ResponsesEvent`): the HTTP test
 * suite checks every answer and streamed event against these declarations (`checkAnswers`).
 */
const asResponse = (response: ResponseObject) => response as unknown as Response;
const asEvents = (events: AsyncIterable<ResponsesEvent>) => events as unknown as AsyncIterable<ResponseStreamEvent>;

const FINISHED: readonly ResponseStatus[] = ['completed', 'failed', 'cancelled', 'incomplete'];

/**
 * The Responses API, stored: every response (unless `store: false`) is kept with its input and output
 * items, so later requests continue from it (`previous_response_id`), refer to its items
 * (`item_reference`) or read it back. `background: true` responses run on a leased queue any process
 * sharing the database can take over; their stream events are kept so a client can follow or resume.
 */
export class Responses {
  readonly #chat: ChatAdapterContract;
  readonly #searcher?: StoreSearcher;
  readonly #log: Logger;
  readonly #db: SqlClient;
  readonly #repository: ResponsesRepository;
  readonly #sources: ContextSources;
  readonly #contextTokens: number;
  readonly #events: EventLog;
  readonly #store: OutcomeStore;
  readonly #background: BackgroundResponses;
  readonly #foregroundLeases: ForegroundLeases;
  readonly #mcp?: McpDeps;
  /** The `mcp` tools (with their headers) of queued background responses: kept in this process's memory only. */
  readonly #mcpSecrets = new Map<string, McpToolSettings[]>();
  /** `fathom.responses.inputItems`: the input items of a stored response. */
  readonly inputItems: ResponseInputItems;

  constructor(options: ResponsesOptions) {
    this.#chat = options.chat;
    this.#searcher = options.searcher;
    this.#log = options.log;
    this.#db = options.db;
    this.#repository = options.responses ?? new SqlResponsesRepository(options.db);
    this.#sources = {
      responses: this.#repository,
      conversations: options.conversations ?? new SqlConversationsRepository(options.db),
      files: options.files,
    };
    this.#contextTokens = options.contextTokens ?? 128_000;
    this.#mcp = options.mcp;
    this.#events = new EventLog(this.#repository);
    this.#store = { db: options.db, responses: this.#repository, conversations: this.#sources.conversations };
    this.#background = new BackgroundResponses({
      store: this.#store,
      sources: this.#sources,
      events: this.#events,
      chat: this.#chat,
      searcher: this.#searcher,
      mcp: options.mcp,
      mcpSecrets: this.#mcpSecrets,
      contextTokens: this.#contextTokens,
      log: options.log,
      concurrency: options.concurrency ?? 8,
      leaseMs: options.leaseMs,
      runAsOrigin: options.runAsOrigin,
    });
    this.#foregroundLeases = new ForegroundLeases({
      repository: this.#repository,
      log: options.log,
      leaseMs: options.leaseMs,
      onEnded: (id) => this.#events.notify(id),
    });
    this.inputItems = new ResponseInputItems(this.#repository);
  }

  /**
   * Starts running background responses (queued ones, and those a stopped process left) and ending the
   * stored foreground responses of stopped processes `failed`.
   */
  start(): void {
    this.#background.start();
    this.#foregroundLeases.start();
  }

  async close(): Promise<void> {
    await Promise.all([this.#background.close(), this.#foregroundLeases.close()]);
  }

  /**
   * `POST /v1/responses`. Validation, unknown ids and the first model call's errors throw (an HTTP
   * status); once a stream has started, a failure ends it with `response.failed` and is stored.
   */
  async create(accountId: string, params: ResponseCreateParams, options: { signal?: AbortSignal } = {}): Promise<CreateResult> {
    const request = readResponseRequest(params, { mcpServers: new Set(Object.keys(this.#mcp?.servers ?? {})) });
    await checkOwnership({ files: this.#sources.files, searcher: this.#searcher }, accountId, request);
    const response = this.#newResponse(request);
    if (request.background) {
      await checkContext(this.#sources, accountId, request);
      let claims: ApprovalClaim[] = [];
      if (hasApprovalResponses(request.input)) {
        const built = await buildContext(this.#sources, accountId, request, this.#contextTokens);
        claims = checkMcpApprovals(request.mcp, built.items, built.firstInput);
      }
      response.status = 'queued';
      // mcp headers live only in this process's memory: it claims the response itself, so no other process
      // takes it while this one lives (one that takes it over later ends it failed, saying why).
      const held = request.mcp.some(hasMcpSecrets);
      const row = held
        ? {
            ...this.#row(accountId, request, response, 'in_progress', withoutMcpSecrets(request)),
            attempts: 1,
            lease: this.#background.newLease(),
          }
        : this.#row(accountId, request, response, 'queued', withoutMcpSecrets(request));
      await this.#db.transaction(async (tx) => {
        // Queued only with its approvals claimed: a second request answering the same one gets a 400.
        await claimApprovals(tx, accountId, response.id, claims);
        const repository = this.#repository.in(tx);
        await repository.insert(row);
        await repository.addItems(response.id, accountId, 'input', request.input);
      });
      if (request.mcp.length) this.#mcpSecrets.set(response.id, request.mcp);
      if (held) this.#background.adopt(row);
      else this.#background.wake();
      if (!request.stream) return { response: asResponse(response) };
      return { events: asEvents(this.#events.follow(accountId, response.id, -1, options.signal)) };
    }
    const context = await buildContext(this.#sources, accountId, request, this.#contextTokens);
    if (hasApprovalResponses(request.input)) {
      // Claimed before anything runs: of two requests answering the same approval, one runs the call.
      await claimApprovals(this.#db, accountId, response.id, checkMcpApprovals(request.mcp, context.items, context.firstInput));
    }
    // Aborted when this process stops or loses the response's lease (stored responses), or the client goes.
    const stop = new AbortController();
    const events = runResponse({ chat: this.#chat, searcher: this.#searcher, mcp: this.#mcp }, request, context.messages, response, {
      accountId,
      context,
      signal: options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal,
    })[Symbol.asyncIterator]();
    let first: IteratorResult<ResponsesEvent>;
    try {
      first = await events.next();
    } catch (error) {
      if (request.store && !options.signal?.aborted) await this.#storeFailed(accountId, request, response, error);
      throw error;
    }
    let lease: ForegroundLease | undefined;
    if (request.store) {
      const row = {
        ...this.#row(accountId, request, response, 'in_progress', null),
        attempts: 1,
        lease: this.#foregroundLeases.newLease(),
      };
      await this.#db.transaction(async (tx) => {
        const repository = this.#repository.in(tx);
        await repository.insert(row);
        await repository.addItems(response.id, accountId, 'input', request.input);
      });
      lease = this.#foregroundLeases.hold(row, stop);
    }
    const run = this.#foreground({
      accountId,
      request,
      response,
      first,
      events,
      stop,
      lease,
      signal: options.signal,
      rethrow: !request.stream,
    });
    if (request.stream) return { events: asEvents(run) };
    for await (const _ of run);
    return { response: asResponse(viewResponse(response, request.include)) };
  }

  /** `GET /v1/responses/{id}`: the stored response, its output shown as `include` asks. */
  async retrieve(accountId: string, id: string, params: Omit<ResponseRetrieveParams, 'stream' | 'starting_after'> = {}): Promise<Response> {
    return asResponse(await this.#retrieve(accountId, id, includeOf(params)));
  }

  async #retrieve(accountId: string, id: string, include: readonly string[]): Promise<ResponseObject> {
    const stored = await this.#get(accountId, id);
    const body = stored.body;
    if (FINISHED.includes(stored.status)) {
      const output = await this.#repository.items(id, 'output');
      if (output.length || stored.status === 'completed') body.output = output;
    }
    return viewResponse(body, include);
  }

  /** `GET /v1/responses/{id}?stream=true`: a background response's events after `startingAfter`, then live ones. */
  async stream(accountId: string, id: string, startingAfter = -1, signal?: AbortSignal): Promise<AsyncIterable<ResponseStreamEvent>> {
    const stored = await this.#get(accountId, id);
    if (!stored.background) {
      throw new InvalidRequestError(
        `Response '${id}' was not created with background: true; only background responses can be streamed again.`,
        'stream',
      );
    }
    return asEvents(this.#events.follow(accountId, id, startingAfter, signal));
  }

  async delete(accountId: string, id: string): Promise<ResponseDeleted> {
    const stored = await this.#repository.get(accountId, id);
    if (!stored) throw new NotFoundError('response', id);
    this.#background.cancel(id);
    await this.#repository.delete(accountId, id);
    this.#events.notify(id);
    return { id, object: 'response', deleted: true };
  }

  /** `POST /v1/responses/{id}/cancel`: a queued or running background response ends `cancelled`. */
  async cancel(accountId: string, id: string): Promise<Response> {
    return asResponse(await this.#cancel(accountId, id));
  }

  async #cancel(accountId: string, id: string): Promise<ResponseObject> {
    const stored = await this.#get(accountId, id);
    if (!stored.background) {
      throw new InvalidRequestError(`Only responses created with background: true can be cancelled; '${id}' was not.`, 'response_id');
    }
    if (stored.status === 'cancelled') return stored.body;
    if (FINISHED.includes(stored.status)) {
      throw new InvalidRequestError(`Cannot cancel response '${id}': it already ended with status '${stored.status}'.`, 'response_id');
    }
    const body = { ...stored.body, status: 'cancelled' };
    if (!(await this.#repository.cancel(accountId, id, body))) return this.#retrieve(accountId, id, []);
    this.#background.cancel(id);
    this.#events.notify(id);
    return body;
  }

  /** Resolves once this process runs no background response (tests). */
  idle(): Promise<void> {
    return this.#background.idle();
  }

  #newResponse(request: ResponseRequest): ResponseObject {
    return {
      id: newId('resp_'),
      object: 'response',
      access_programs: null,
      created_at: nowSeconds(),
      status: 'in_progress',
      background: request.background,
      completed_at: null,
      error: null,
      incomplete_details: null,
      model: request.model,
      output: [],
      output_text: '',
      previous_response_id: request.previousResponseId ?? null,
      conversation: request.conversationId ? { id: request.conversationId } : null,
      ...request.echo,
    };
  }

  #row(accountId: string, request: ResponseRequest, response: ResponseObject, status: ResponseStatus, stored: unknown) {
    return {
      id: response.id,
      accountId,
      status,
      background: request.background,
      previousResponseId: request.previousResponseId ?? null,
      conversationId: request.conversationId ?? null,
      body: response,
      request: stored,
      attempts: 0,
      createdAt: response.created_at as number,
      requestId: currentRequestId(),
      traceparent: currentTraceparent(),
      keyId: currentCallContext()?.keyId ?? null,
    };
  }

  async #get(accountId: string, id: string): Promise<StoredResponse> {
    const stored = await this.#repository.get(accountId, id);
    if (!stored) throw new NotFoundError('response', id);
    return stored;
  }

  /**
   * Runs a foreground response after its first event, storing the outcome; a failure mid-way becomes
   * `response.failed`. When this process stops (or loses the lease), the lease's holder stores `failed`.
   */
  async *#foreground(run: {
    accountId: string;
    request: ResponseRequest;
    response: ResponseObject;
    first: IteratorResult<ResponsesEvent>;
    events: AsyncIterator<ResponsesEvent>;
    stop: AbortController;
    lease?: ForegroundLease;
    signal?: AbortSignal;
    rethrow: boolean;
  }): AsyncGenerator<ResponsesEvent> {
    const { accountId, request, response, events, stop, lease, signal } = run;
    let sequence = 0;
    let ended = false;
    try {
      for (let next = run.first; !next.done; next = await events.next()) {
        sequence = next.value.sequence_number + 1;
        if (TERMINAL_EVENTS.has(next.value.type) && lease) await storeOutcome(this.#store, accountId, request, response, lease.owner);
        yield next.value;
      }
      ended = true;
    } catch (error) {
      ended = true;
      response.status = 'failed';
      if (stop.signal.aborted) {
        response.error = { ...STOPPED_ERROR };
        // The lease's holder writes this too; whichever comes second changes nothing.
        if (lease) await this.#repository.update(response.id, 'failed', viewResponse(response, request.include), lease.owner);
        if (run.rethrow) throw new ServiceUnavailableError(STOPPED_ERROR.message);
        yield { type: 'response.failed', sequence_number: sequence, response: viewResponse(response, request.include) };
        return;
      }
      if (signal?.aborted) {
        response.status = 'cancelled';
        if (lease) await this.#repository.update(response.id, 'cancelled', response, lease.owner);
        return;
      }
      response.error = responseError(error, this.#log, response.id);
      if (lease) await this.#repository.update(response.id, 'failed', viewResponse(response, request.include), lease.owner);
      if (run.rethrow) throw error;
      yield { type: 'response.failed', sequence_number: sequence, response: viewResponse(response, request.include) };
    } finally {
      if (!ended) {
        // The reader stopped before the end (its client went away between two events): stop the model call.
        stop.abort();
        response.status = 'cancelled';
        if (lease) await this.#repository.update(response.id, 'cancelled', response, lease.owner);
      }
      lease?.done();
    }
  }

  async #storeFailed(accountId: string, request: ResponseRequest, response: ResponseObject, error: unknown): Promise<void> {
    response.status = 'failed';
    response.error = responseError(error, this.#log, response.id);
    await this.#db.transaction(async (tx) => {
      const repository = this.#repository.in(tx);
      await repository.insert(this.#row(accountId, request, response, 'failed', null));
      await repository.addItems(response.id, accountId, 'input', request.input);
    });
  }
}
