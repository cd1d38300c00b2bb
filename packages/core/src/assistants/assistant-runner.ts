import { InvalidRequestError, NotFoundError } from '../errors';
import { nowSeconds } from '../internal/ids';
import { silentLogger, type Logger } from '../internal/logger';
import type { ListPage, ListQuery } from '../internal/pagination';
import { parseModelId } from '../models/model-id';
import type { ChatAdapterContract } from '../models/types';
import type { SqlClient } from '../storage';
import type { StoreSearcher } from '../vector/types';
import { type AssistantInput, newAssistant, updateAssistant } from './assistant-input';
import { type AssistantsRepository, SqlAssistantsRepository } from './assistants-repository';
import { newRunObject, type RunInput, type ThreadAndRunInput } from './create-run';
import { normalizeMetadata, normalizeToolResources } from './normalize-input';
import { emitRun, presentStep, type RunDeps } from './run-context';
import { RunEvents } from './run-events';
import { cancelRunNow, expireRun } from './run-lifecycle';
import { emptyRunState } from './run-state';
import { RunWorker } from './run-worker';
import { type RunsRepository, SqlRunsRepository } from './runs-repository';
import { ASSISTANT_TEXT_LIMITS, checkContent, checkLengths, checkMessages, checkRunText } from './text-limits';
import { checkToolResources } from './thread-attachments';
import { type MessageInput, newClientMessage, type ThreadInput } from './thread-input';
import type { ThreadStores } from './thread-stores';
import { ThreadService } from './thread-service';
import { SqlThreadsRepository, type ThreadsRepository } from './threads-repository';
import { notAcceptingOutputs, readToolOutputs, recordToolOutputs } from './tool-outputs';
import type { Assistant, AssistantStreamEvent, Message, Run, RunStep, Thread } from './types';

export interface AssistantRunnerOptions {
  /** The database (SQLite or PostgreSQL) holding assistants, threads and runs. */
  db: SqlClient;
  /** The model gateway (`ChatAdapter`). */
  chat: ChatAdapterContract;
  /** Document search over vector stores (`Documents`). */
  searcher: StoreSearcher;
  /**
   * Vector stores for threads (the composition root wires it to `Documents`): checks that store and file
   * ids are the account's when saved, and indexes files attached to messages. Without it, ids are not
   * checked and attachments are stored but not indexed.
   */
  stores?: ThreadStores;
  /** Default: silent. */
  log?: Logger;
  /** Model answers asking for tools allowed per run before it fails; default 8. */
  maxToolRounds?: number;
  /** Longest wait (ms) for stores still ingesting before a file_search; default 60000, as OpenAI. */
  ingestionWaitMs?: number;
  /** Seconds a run may take (and wait in `requires_action`) before it expires; default 600 (OpenAI: 10 minutes). */
  runExpirySeconds?: number;
  /** Lease of an executing run, ms: another process takes the run over when it is not renewed; default 30000 (`FATHOM_LEASE_SECONDS`). */
  leaseMs?: number;
  /** How often this process looks for runs whose process stopped, ms; default 1000. */
  pollMs?: number;
  /** Claims of one run (since it last started) before it ends `failed` with `server_error`; default 3. */
  maxAttempts?: number;
  /** Runs this process takes over from stopped processes at once; default 16. */
  concurrency?: number;
}

export interface RunOptions {
  /** `include[]` of the request, e.g. `step_details.tool_calls[*].file_search.results[*].content`. */
  include?: string[];
}

type Deleted<Kind extends string> = { id: string; object: Kind; deleted: true };

/**
 * Assistants, threads, messages, runs and run steps over the storage seam (SQLite or PostgreSQL), with
 * the run loop that lets the model call `file_search` (and the caller's functions). Runs are leased
 * background work (`RunWorker`): any number of processes on one database share them, and a run whose
 * process stopped is taken over and goes on. `stream*` methods return OpenAI's assistant events for
 * the HTTP edge to send as server-sent events.
 */
export class AssistantRunner {
  private readonly assistants: AssistantsRepository;
  private readonly threads: ThreadsRepository;
  private readonly runs: RunsRepository;
  private readonly stores?: ThreadStores;
  private readonly events = new RunEvents();
  private readonly deps: RunDeps;
  private readonly expirySeconds: number;
  private readonly worker: RunWorker;
  private readonly threadService: ThreadService;

  constructor(options: AssistantRunnerOptions) {
    if (!options?.db) throw new TypeError('AssistantRunner: `db` is required.');
    if (!options.chat) throw new TypeError('AssistantRunner: `chat` (a ChatAdapterContract) is required.');
    if (!options.searcher) throw new TypeError('AssistantRunner: `searcher` (a StoreSearcher) is required.');
    this.assistants = new SqlAssistantsRepository(options.db);
    this.threads = new SqlThreadsRepository(options.db);
    this.runs = new SqlRunsRepository(options.db);
    this.stores = options.stores;
    this.expirySeconds = options.runExpirySeconds ?? 600;
    this.deps = {
      db: options.db,
      assistants: this.assistants,
      threads: this.threads,
      runs: this.runs,
      events: this.events,
      chat: options.chat,
      searcher: options.searcher,
      log: options.log ?? silentLogger,
      maxToolRounds: options.maxToolRounds ?? 8,
      ingestionWaitMs: options.ingestionWaitMs ?? 60_000,
    };
    this.threadService = new ThreadService(options.db, this.threads, this.runs, this.stores);
    this.worker = new RunWorker(this.deps, {
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1000,
      maxAttempts: options.maxAttempts ?? 3,
      concurrency: options.concurrency ?? 16,
    });
  }

  /** Starts taking over runs whose process stopped (after a crash, or another node's). */
  start(): void {
    this.worker.start();
  }

  /** Stops the runs executing here (another process, or the next start, goes on with them) and ends open streams. */
  async close(): Promise<void> {
    await this.worker.close();
    this.events.closeAll();
  }

  /** A model id given on create/update/run must name a configured vendor: 400 now, not a failed run later. */
  private checkModel(model: unknown): void {
    const { chat } = this.deps;
    if (model === undefined || model === null || model === '' || !chat.vendors) return;
    parseModelId(typeof model === 'string' && chat.resolveModel ? chat.resolveModel(model) : model, chat.vendors());
  }

  // Assistants
  async createAssistant(accountId: string, input: AssistantInput): Promise<Assistant> {
    checkLengths(input, ASSISTANT_TEXT_LIMITS);
    this.checkModel(input.model);
    const assistant = newAssistant(input);
    await checkToolResources(this.stores, accountId, assistant.tool_resources, 'tool_resources');
    await this.assistants.insert(accountId, assistant);
    return assistant;
  }

  async retrieveAssistant(accountId: string, id: string, param: string | null = null): Promise<Assistant> {
    const assistant = await this.assistants.get(accountId, id);
    if (!assistant) throw new NotFoundError('assistant', id, param);
    return assistant;
  }

  async updateAssistant(accountId: string, id: string, input: AssistantInput): Promise<Assistant> {
    checkLengths(input, ASSISTANT_TEXT_LIMITS);
    this.checkModel(input.model);
    const assistant = updateAssistant(await this.retrieveAssistant(accountId, id), input);
    if (input.tool_resources !== undefined) {
      await checkToolResources(this.stores, accountId, normalizeToolResources(input.tool_resources), 'tool_resources');
    }
    await this.assistants.save(accountId, assistant);
    return assistant;
  }

  listAssistants(accountId: string, query: ListQuery): Promise<ListPage<Assistant>> {
    return this.assistants.list(accountId, query);
  }

  async deleteAssistant(accountId: string, id: string): Promise<Deleted<'assistant.deleted'>> {
    if (!(await this.assistants.delete(accountId, id))) throw new NotFoundError('assistant', id);
    return { id, object: 'assistant.deleted', deleted: true };
  }

  // Threads and messages
  /** Creates a thread with its messages; files attached for file_search go into the thread's vector store. */
  createThread(accountId: string, input: ThreadInput = {}): Promise<Thread> {
    checkMessages(input?.messages, 'messages');
    return this.threadService.create(accountId, input);
  }

  retrieveThread(accountId: string, id: string): Promise<Thread> {
    return this.threadService.retrieve(accountId, id);
  }

  updateThread(
    accountId: string,
    id: string,
    input: { metadata?: Record<string, string> | null; tool_resources?: unknown },
  ): Promise<Thread> {
    return this.threadService.update(accountId, id, input);
  }

  /** Deletes a thread with its messages, runs and steps; a run executing here is stopped first. */
  async deleteThread(accountId: string, id: string): Promise<Deleted<'thread.deleted'>> {
    await this.threadService.retrieve(accountId, id);
    const active = await this.runs.activeRunOf(id);
    if (active) this.worker.cancel(active.id);
    return this.threadService.delete(id);
  }

  async createMessage(accountId: string, threadId: string, input: MessageInput): Promise<Message> {
    checkContent(input?.content, 'content');
    await this.threadService.retrieve(accountId, threadId);
    await this.assertNoActiveRun(threadId, 'add messages to');
    return this.threadService.createMessage(accountId, threadId, input);
  }

  listMessages(accountId: string, threadId: string, query: ListQuery & { run_id?: string }): Promise<ListPage<Message>> {
    return this.threadService.listMessages(accountId, threadId, query);
  }

  retrieveMessage(accountId: string, threadId: string, id: string): Promise<Message> {
    return this.threadService.retrieveMessage(accountId, threadId, id);
  }

  updateMessage(accountId: string, threadId: string, id: string, input: { metadata?: Record<string, string> | null }): Promise<Message> {
    return this.threadService.updateMessage(accountId, threadId, id, input);
  }

  deleteMessage(accountId: string, threadId: string, id: string): Promise<Deleted<'thread.message.deleted'>> {
    return this.threadService.deleteMessage(accountId, threadId, id);
  }

  // Runs
  /** Creates a run on a thread and executes it in the background; answers the queued run. */
  async createRun(accountId: string, threadId: string, input: RunInput, options: RunOptions = {}): Promise<Run> {
    checkRunText(input);
    this.checkModel(input.model);
    return (await this.prepareRun(accountId, threadId, input, options, false)).run;
  }

  /** Like `createRun`, as OpenAI's event stream: `thread.run.created` ... `thread.run.completed`, then `done`. */
  async streamRun(
    accountId: string,
    threadId: string,
    input: RunInput,
    options: RunOptions = {},
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    checkRunText(input);
    this.checkModel(input.model);
    return (await this.prepareRun(accountId, threadId, input, options, true)).events!;
  }

  /** Creates a thread (with its messages) and a run on it. */
  async createThreadAndRun(accountId: string, input: ThreadAndRunInput, options: RunOptions = {}): Promise<Run> {
    checkRunText(input);
    checkMessages(input?.thread?.messages, 'thread.messages');
    this.checkModel(input.model);
    return (await this.prepareThreadAndRun(accountId, input, options, false)).run;
  }

  /** Like `createThreadAndRun`, as an event stream starting with `thread.created`. */
  async streamThreadAndRun(
    accountId: string,
    input: ThreadAndRunInput,
    options: RunOptions = {},
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    checkRunText(input);
    checkMessages(input?.thread?.messages, 'thread.messages');
    this.checkModel(input.model);
    return (await this.prepareThreadAndRun(accountId, input, options, true)).events!;
  }

  /** A run as stored; one paused in `requires_action` past its `expires_at` becomes `expired` now. */
  async retrieveRun(accountId: string, threadId: string, id: string): Promise<Run> {
    const run = await this.runs.get(accountId, threadId, id);
    if (!run) throw new NotFoundError('run', id);
    if (run.status === 'requires_action' && run.expires_at !== null && run.expires_at < nowSeconds()) {
      const stored = (await this.runs.byId(id))!;
      if (await expireRun({ deps: this.deps, run: stored.run, state: stored.state, accountId })) return stored.run;
      return (await this.runs.get(accountId, threadId, id)) ?? run;
    }
    return run;
  }

  async listRuns(accountId: string, threadId: string, query: ListQuery): Promise<ListPage<Run>> {
    await this.threadService.retrieve(accountId, threadId);
    return this.runs.list(accountId, threadId, query);
  }

  async updateRun(accountId: string, threadId: string, id: string, input: { metadata?: Record<string, string> | null }): Promise<Run> {
    await this.retrieveRun(accountId, threadId, id);
    if (input.metadata !== undefined) await this.runs.setMetadata(id, normalizeMetadata(input.metadata) ?? {});
    return this.retrieveRun(accountId, threadId, id);
  }

  /**
   * Cancels a run: one waiting for tool outputs at once; an executing one answers `cancelling` and its
   * executor ends it `cancelled` (at once when it runs in this process, else at its next step).
   */
  async cancelRun(accountId: string, threadId: string, id: string): Promise<Run> {
    const run = await this.retrieveRun(accountId, threadId, id);
    if ((run.status === 'queued' || run.status === 'in_progress') && (await this.runs.requestCancel(id))) {
      run.status = 'cancelling';
      emitRun({ deps: this.deps, run });
      this.worker.cancel(id);
      return run;
    }
    if (run.status === 'requires_action') {
      const stored = (await this.runs.byId(id))!;
      if (await cancelRunNow({ deps: this.deps, run: stored.run, state: stored.state, accountId })) return stored.run;
    }
    const now = await this.retrieveRun(accountId, threadId, id);
    if (now.status === 'cancelling') return now;
    throw new InvalidRequestError(`Cannot cancel run with status '${now.status}'.`, null, 'invalid_state');
  }

  /** Completes the paused `tool_calls` step with the outputs and resumes the run. */
  async submitToolOutputs(accountId: string, threadId: string, id: string, input: { tool_outputs?: unknown }): Promise<Run> {
    return (await this.resume(accountId, threadId, id, input, false)).run;
  }

  async streamSubmitToolOutputs(
    accountId: string,
    threadId: string,
    id: string,
    input: { tool_outputs?: unknown },
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    return (await this.resume(accountId, threadId, id, input, true)).events!;
  }

  // Run steps
  async listRunSteps(accountId: string, threadId: string, runId: string, query: ListQuery, include: string[] = []) {
    await this.retrieveRun(accountId, threadId, runId);
    const page = await this.runs.listSteps(runId, query);
    return { ...page, data: page.data.map((step) => presentStep(step, include)) };
  }

  async retrieveRunStep(accountId: string, threadId: string, runId: string, id: string, include: string[] = []): Promise<RunStep> {
    const step = await this.runs.getStep(accountId, threadId, runId, id);
    if (!step) throw new NotFoundError('run step', id);
    return presentStep(step, include);
  }

  // Internals
  private async assertNoActiveRun(threadId: string, action: string): Promise<void> {
    const active = await this.runs.activeRunOf(threadId);
    if (active) throw threadBusy(action, threadId, active.id);
  }

  private async prepareRun(
    accountId: string,
    threadId: string,
    input: RunInput & { tool_resources?: unknown },
    options: RunOptions,
    stream: boolean,
    created?: Thread,
  ): Promise<{ run: Run; events?: AsyncIterable<AssistantStreamEvent> }> {
    await this.threadService.retrieve(accountId, threadId);
    await this.assertNoActiveRun(threadId, 'create a run on');
    if (typeof input.assistant_id !== 'string' || !input.assistant_id) {
      throw new InvalidRequestError(`Missing required parameter: 'assistant_id'.`, 'assistant_id');
    }
    const assistant = await this.retrieveAssistant(accountId, input.assistant_id, 'assistant_id');
    const run = newRunObject(assistant, threadId, input, this.expirySeconds);
    const additional = (input.additional_messages ?? []).map((message, index) => {
      if (!message || (message.role !== 'user' && message.role !== 'assistant')) {
        throw new InvalidRequestError(
          `Invalid 'additional_messages[${index}].role': expected 'user' or 'assistant'.`,
          `additional_messages[${index}].role`,
        );
      }
      return newClientMessage(threadId, message, `additional_messages[${index}]`);
    });
    const state = emptyRunState();
    state.include = options.include ?? [];
    state.toolResources = input.tool_resources ? normalizeToolResources(input.tool_resources) : undefined;
    await checkToolResources(this.stores, accountId, state.toolResources, 'tool_resources');
    await this.threadService.attach(
      accountId,
      threadId,
      additional,
      additional.map((_, index) => `additional_messages[${index}].`),
    );
    const events = stream ? this.events.watch(run.id) : undefined;
    // The run and its additional messages are written together: a thread that got another run meanwhile gets neither.
    const inserted = await this.deps.db
      .transaction(async (tx) => {
        await this.threadService.insertMessages(tx, accountId, additional);
        if (!(await this.runs.in(tx).insert(accountId, run, state, this.worker.lease()))) throw new ThreadBusy();
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof ThreadBusy) return false;
        throw error;
      });
    if (!inserted) {
      events?.close();
      throw threadBusy('create a run on', threadId, (await this.runs.activeRunOf(threadId))?.id ?? 'that is active');
    }
    if (created) this.events.emit(run.id, 'thread.created', created);
    emitRun({ deps: this.deps, run }, 'created');
    emitRun({ deps: this.deps, run }, 'queued');
    this.worker.execute(run.id);
    return { run, events: events && this.withDone(events) };
  }

  private async prepareThreadAndRun(accountId: string, input: ThreadAndRunInput, options: RunOptions, stream: boolean) {
    if (typeof input.assistant_id !== 'string' || !input.assistant_id) {
      throw new InvalidRequestError(`Missing required parameter: 'assistant_id'.`, 'assistant_id');
    }
    await this.retrieveAssistant(accountId, input.assistant_id, 'assistant_id');
    if (input.tool_resources !== undefined) {
      await checkToolResources(this.stores, accountId, normalizeToolResources(input.tool_resources), 'tool_resources');
    }
    const thread = await this.threadService.create(accountId, input.thread ?? {}, 'thread.');
    const { thread: _thread, ...runInput } = input;
    try {
      return await this.prepareRun(accountId, thread.id, runInput, options, stream, stream ? thread : undefined);
    } catch (error) {
      await this.deleteThread(accountId, thread.id);
      throw error;
    }
  }

  private async resume(accountId: string, threadId: string, id: string, input: { tool_outputs?: unknown }, stream: boolean) {
    const run = await this.retrieveRun(accountId, threadId, id);
    if (run.status !== 'requires_action') throw notAcceptingOutputs(run.status);
    const outputs = readToolOutputs(run, input);
    const stored = (await this.runs.byId(id))!;
    const events = stream ? this.events.watch(id) : undefined;
    if (!(await recordToolOutputs(this.deps, stored, outputs, this.worker.lease()))) {
      events?.close();
      throw notAcceptingOutputs((await this.retrieveRun(accountId, threadId, id)).status);
    }
    this.worker.execute(id);
    return { run: stored.run, events: events && this.withDone(events) };
  }

  private async *withDone(events: AsyncIterable<AssistantStreamEvent>): AsyncIterable<AssistantStreamEvent> {
    yield* events;
    yield { event: 'done', data: '[DONE]' };
  }
}

/** The thread got an active run between the check and the insert (another request, maybe another process). */
class ThreadBusy extends Error {}

function threadBusy(action: string, threadId: string, runId: string): InvalidRequestError {
  return new InvalidRequestError(`Can't ${action} ${threadId} while a run ${runId} is active.`, null, 'thread_busy');
}
