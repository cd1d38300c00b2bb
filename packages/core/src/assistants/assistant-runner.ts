import type { Database } from '../db';
import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import { silentLogger, type Logger } from '../internal/logger';
import type { ListQuery } from '../internal/pagination';
import { parseModelId } from '../models/model-id';
import type { ChatAdapterContract } from '../models/types';
import type { StoreSearcher } from '../vector/types';
import { AssistantStore, type AssistantInput } from './assistant-store';
import { newRunObject, type RunInput, type ThreadAndRunInput } from './create-run';
import { normalizeMetadata, normalizeToolResources } from './normalize-input';
import { emitRun, presentStep, type RunContext, type RunDeps } from './run-context';
import { RunEvents } from './run-events';
import { cancelRunNow, expireRun, failRun, saveAndEmit } from './run-lifecycle';
import { executeRun, type AbortReason } from './run-loop';
import { RunStore } from './run-store';
import { ASSISTANT_TEXT_LIMITS, checkContent, checkLengths, checkMessages, checkRunText } from './text-limits';
import { ThreadStore, type MessageInput, type ThreadInput } from './thread-store';
import type { AssistantStreamEvent, Run, RunStep } from './types';

export interface AssistantRunnerOptions {
  db: Database;
  /** The model gateway (`ChatAdapter`). */
  chat: ChatAdapterContract;
  /** Document search over vector stores (`Documents`). */
  searcher: StoreSearcher;
  /** Default: silent. */
  log?: Logger;
  /** Model answers asking for tools allowed per run before it fails; default 8. */
  maxToolRounds?: number;
  /** Longest wait (ms) for stores still ingesting before a file_search; default 60000, as OpenAI. */
  ingestionWaitMs?: number;
  /** Seconds a run may wait in `requires_action` before it expires; default 600 (OpenAI: 10 minutes). */
  runExpirySeconds?: number;
}

export interface RunOptions {
  /** `include[]` of the request, e.g. `step_details.tool_calls[*].file_search.results[*].content`. */
  include?: string[];
}

/**
 * Assistants, threads, messages, runs and run steps over SQLite, with the run loop that lets the
 * model call `file_search` (and the caller's functions). Runs execute in the background; `stream*`
 * methods return OpenAI's assistant events for the HTTP edge to send as server-sent events.
 */
export class AssistantRunner {
  readonly assistants: AssistantStore;
  readonly threads: ThreadStore;
  readonly runs: RunStore;
  private readonly events = new RunEvents();
  private readonly deps: RunDeps;
  private readonly expirySeconds: number;
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closed = false;

  constructor(options: AssistantRunnerOptions) {
    if (!options?.db) throw new TypeError('AssistantRunner: `db` is required.');
    if (!options.chat) throw new TypeError('AssistantRunner: `chat` (a ChatAdapterContract) is required.');
    if (!options.searcher) throw new TypeError('AssistantRunner: `searcher` (a StoreSearcher) is required.');
    this.assistants = new AssistantStore(options.db);
    this.threads = new ThreadStore(options.db);
    this.runs = new RunStore(options.db);
    this.expirySeconds = options.runExpirySeconds ?? 600;
    this.deps = {
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
  }

  /** Runs a previous process left queued or in progress become `failed` (server_error); none resume silently. */
  start(): void {
    this.closed = false;
    for (const id of this.runs.idsWithStatus(['queued', 'in_progress', 'cancelling'])) {
      if (this.active.has(id)) continue;
      const stored = this.runs.byId(id)!;
      const context = { deps: this.deps, run: stored.run, state: stored.state, accountId: stored.accountId };
      if (stored.run.status === 'cancelling') cancelRunNow(context);
      else
        failRun(context, {
          code: 'server_error',
          message: 'The server stopped while this run was in progress. Create a new run to try again.',
        });
    }
  }

  /** Stops executing runs (they are failed by the next `start()`), ends open streams. */
  async close(): Promise<void> {
    this.closed = true;
    const running = [...this.active.values()];
    for (const { controller } of running) controller.abort('shutdown' satisfies AbortReason);
    await Promise.allSettled(running.map((entry) => entry.done));
    this.events.closeAll();
  }

  /** A model id given on create/update/run must name a configured vendor: 400 now, not a failed run later. */
  private checkModel(model: unknown): void {
    const { chat } = this.deps;
    if (model === undefined || model === null || model === '' || !chat.vendors) return;
    parseModelId(typeof model === 'string' && chat.resolveModel ? chat.resolveModel(model) : model, chat.vendors());
  }

  // Assistants
  createAssistant(accountId: string, input: AssistantInput) {
    checkLengths(input, ASSISTANT_TEXT_LIMITS);
    this.checkModel(input.model);
    return this.assistants.create(accountId, input);
  }
  retrieveAssistant(accountId: string, id: string) {
    return this.assistants.get(accountId, id);
  }
  updateAssistant(accountId: string, id: string, input: AssistantInput) {
    checkLengths(input, ASSISTANT_TEXT_LIMITS);
    this.checkModel(input.model);
    return this.assistants.update(accountId, id, input);
  }
  listAssistants(accountId: string, query: ListQuery) {
    return this.assistants.list(accountId, query);
  }
  deleteAssistant(accountId: string, id: string) {
    return this.assistants.delete(accountId, id);
  }

  // Threads and messages
  createThread(accountId: string, input: ThreadInput = {}) {
    checkMessages(input?.messages, 'messages');
    return this.threads.create(accountId, input);
  }
  retrieveThread(accountId: string, id: string) {
    return this.threads.get(accountId, id);
  }
  updateThread(accountId: string, id: string, input: { metadata?: Record<string, string> | null; tool_resources?: unknown }) {
    return this.threads.update(accountId, id, input);
  }
  deleteThread(accountId: string, id: string) {
    this.threads.get(accountId, id);
    const active = this.runs.activeRunOf(id);
    if (active) this.active.get(active.id)?.controller.abort('cancel' satisfies AbortReason);
    return this.threads.delete(accountId, id);
  }
  createMessage(accountId: string, threadId: string, input: MessageInput) {
    checkContent(input?.content, 'content');
    this.threads.get(accountId, threadId);
    this.assertNoActiveRun(threadId, 'add messages to');
    return this.threads.createMessage(accountId, threadId, input);
  }
  listMessages(accountId: string, threadId: string, query: ListQuery & { run_id?: string }) {
    return this.threads.listMessages(accountId, threadId, query);
  }
  retrieveMessage(accountId: string, threadId: string, id: string) {
    return this.threads.getMessage(accountId, threadId, id);
  }
  updateMessage(accountId: string, threadId: string, id: string, input: { metadata?: Record<string, string> | null }) {
    return this.threads.updateMessage(accountId, threadId, id, input);
  }
  deleteMessage(accountId: string, threadId: string, id: string) {
    return this.threads.deleteMessage(accountId, threadId, id);
  }

  // Runs
  /** Creates a run on a thread and executes it in the background; answers the queued run. */
  createRun(accountId: string, threadId: string, input: RunInput, options: RunOptions = {}): Run {
    checkRunText(input);
    this.checkModel(input.model);
    return this.prepareRun(accountId, threadId, input, options, () => undefined).run;
  }

  /** Like `createRun`, as OpenAI's event stream: `thread.run.created` ... `thread.run.completed`, then `done`. */
  streamRun(accountId: string, threadId: string, input: RunInput, options: RunOptions = {}): AsyncIterable<AssistantStreamEvent> {
    checkRunText(input);
    this.checkModel(input.model);
    return this.prepareRun(accountId, threadId, input, options, (run) => this.events.watch(run.id)).events!;
  }

  /** Creates a thread (with its messages) and a run on it. */
  createThreadAndRun(accountId: string, input: ThreadAndRunInput, options: RunOptions = {}): Run {
    checkRunText(input);
    checkMessages(input?.thread?.messages, 'thread.messages');
    this.checkModel(input.model);
    return this.prepareThreadAndRun(accountId, input, options, false).run;
  }

  /** Like `createThreadAndRun`, as an event stream starting with `thread.created`. */
  streamThreadAndRun(accountId: string, input: ThreadAndRunInput, options: RunOptions = {}): AsyncIterable<AssistantStreamEvent> {
    checkRunText(input);
    checkMessages(input?.thread?.messages, 'thread.messages');
    this.checkModel(input.model);
    return this.prepareThreadAndRun(accountId, input, options, true).events!;
  }

  retrieveRun(accountId: string, threadId: string, id: string): Run {
    const run = this.runs.get(accountId, threadId, id);
    if (run.status === 'requires_action' && run.expires_at !== null && run.expires_at < nowSeconds()) {
      const stored = this.runs.byId(id)!;
      expireRun({ deps: this.deps, run: stored.run, state: stored.state, accountId });
      return stored.run;
    }
    return run;
  }
  listRuns(accountId: string, threadId: string, query: ListQuery) {
    this.threads.get(accountId, threadId);
    return this.runs.list(accountId, threadId, query);
  }
  updateRun(accountId: string, threadId: string, id: string, input: { metadata?: Record<string, string> | null }): Run {
    const run = this.runs.get(accountId, threadId, id);
    if (input.metadata !== undefined) run.metadata = normalizeMetadata(input.metadata) ?? {};
    this.runs.save(run);
    return run;
  }

  /** Cancels a run: at once if it waits (queued, requires_action), else `cancelling` until the current step ends. */
  cancelRun(accountId: string, threadId: string, id: string): Run {
    const stored = this.runs.byId(id);
    const run = this.runs.get(accountId, threadId, id);
    const context = { deps: this.deps, run: stored!.run, state: stored!.state, accountId };
    const executing = this.active.get(id);
    if ((run.status === 'queued' || run.status === 'in_progress') && executing) {
      context.run.status = 'cancelling';
      saveAndEmit(context);
      executing.controller.abort('cancel' satisfies AbortReason);
      return context.run;
    }
    if (run.status === 'queued' || run.status === 'in_progress' || run.status === 'requires_action') {
      cancelRunNow(context);
      return context.run;
    }
    if (run.status === 'cancelling') return run;
    throw new InvalidRequestError(`Cannot cancel run with status '${run.status}'.`, null, 'invalid_state');
  }

  /** Completes the paused `tool_calls` step with the outputs and resumes the run. */
  submitToolOutputs(accountId: string, threadId: string, id: string, input: { tool_outputs?: unknown }): Run {
    return this.resume(accountId, threadId, id, input, false).run;
  }

  streamSubmitToolOutputs(
    accountId: string,
    threadId: string,
    id: string,
    input: { tool_outputs?: unknown },
  ): AsyncIterable<AssistantStreamEvent> {
    return this.resume(accountId, threadId, id, input, true).events!;
  }

  // Run steps
  listRunSteps(accountId: string, threadId: string, runId: string, query: ListQuery, include: string[] = []) {
    const page = this.runs.listSteps(accountId, threadId, runId, query);
    return { ...page, data: page.data.map((step) => presentStep(step, include)) };
  }
  retrieveRunStep(accountId: string, threadId: string, runId: string, id: string, include: string[] = []): RunStep {
    return presentStep(this.runs.getStep(accountId, threadId, runId, id), include);
  }

  // Internals
  private assertNoActiveRun(threadId: string, action: string): void {
    const active = this.runs.activeRunOf(threadId);
    if (active) {
      throw new InvalidRequestError(`Can't ${action} ${threadId} while a run ${active.id} is active.`, null, 'thread_busy');
    }
  }

  private prepareRun(
    accountId: string,
    threadId: string,
    input: RunInput,
    options: RunOptions,
    watch: (run: Run) => AsyncIterable<AssistantStreamEvent> | undefined,
    before?: (run: Run) => void,
  ): { run: Run; events?: AsyncIterable<AssistantStreamEvent> } {
    this.threads.get(accountId, threadId);
    this.assertNoActiveRun(threadId, 'create a run on');
    const run = newRunObject(this.assistants, accountId, threadId, input, this.expirySeconds);
    for (const [index, message] of (input.additional_messages ?? []).entries()) {
      if (!message || (message.role !== 'user' && message.role !== 'assistant')) {
        throw new InvalidRequestError(
          `Invalid 'additional_messages[${index}].role': expected 'user' or 'assistant'.`,
          `additional_messages[${index}].role`,
        );
      }
    }
    for (const message of input.additional_messages ?? []) this.threads.createMessage(accountId, threadId, message);
    this.runs.insert(accountId, run);
    const stored = this.runs.byId(run.id)!;
    stored.state.include = options.include ?? [];
    stored.state.toolResources = (input as ThreadAndRunInput).tool_resources
      ? normalizeToolResources((input as ThreadAndRunInput).tool_resources)
      : undefined;
    this.runs.save(run, stored.state);
    const events = watch(run);
    before?.(run);
    emitRun({ deps: this.deps, run }, 'created');
    emitRun({ deps: this.deps, run }, 'queued');
    this.schedule(run.id);
    return { run, events: events && this.withDone(events) };
  }

  private prepareThreadAndRun(accountId: string, input: ThreadAndRunInput, options: RunOptions, stream: boolean) {
    if (typeof input.assistant_id !== 'string' || !input.assistant_id) {
      throw new InvalidRequestError(`Missing required parameter: 'assistant_id'.`, 'assistant_id');
    }
    this.assistants.get(accountId, input.assistant_id, 'assistant_id');
    if (input.tool_resources !== undefined) normalizeToolResources(input.tool_resources);
    const thread = this.threads.create(accountId, input.thread ?? {});
    const { thread: _thread, ...runInput } = input;
    try {
      return this.prepareRun(
        accountId,
        thread.id,
        runInput,
        options,
        (run) => (stream ? this.events.watch(run.id) : undefined),
        (run) => stream && this.events.emit(run.id, 'thread.created', thread),
      );
    } catch (error) {
      this.threads.delete(accountId, thread.id);
      throw error;
    }
  }

  private resume(accountId: string, threadId: string, id: string, input: { tool_outputs?: unknown }, stream: boolean) {
    const run = this.retrieveRun(accountId, threadId, id);
    if (run.status !== 'requires_action') {
      throw new InvalidRequestError(`Runs in status '${run.status}' do not accept tool outputs.`, null, 'invalid_state');
    }
    const outputs = input.tool_outputs;
    if (!Array.isArray(outputs)) throw new InvalidRequestError(`Missing required parameter: 'tool_outputs'.`, 'tool_outputs');
    const pending = run.required_action!.submit_tool_outputs.tool_calls;
    const byId = new Map<string, string>();
    for (const [index, item] of outputs.entries()) {
      const callId = (item as { tool_call_id?: unknown })?.tool_call_id;
      if (typeof callId !== 'string' || !pending.some((call) => call.id === callId)) {
        throw new InvalidRequestError(
          `Invalid 'tool_outputs[${index}].tool_call_id': no pending tool call has this id.`,
          `tool_outputs[${index}].tool_call_id`,
        );
      }
      const output = (item as { output?: unknown }).output;
      byId.set(callId, typeof output === 'string' ? output : JSON.stringify(output ?? ''));
    }
    const missing = pending.filter((call) => !byId.has(call.id)).map((call) => call.id);
    if (missing.length) {
      throw new InvalidRequestError(
        `Missing tool outputs for tool_call_id ${missing.map((m) => `'${m}'`).join(', ')}: submit all outputs at once.`,
        'tool_outputs',
      );
    }
    const stored = this.runs.byId(id)!;
    const events = stream ? this.events.watch(id) : undefined;
    const context: Pick<RunContext, 'deps' | 'run' | 'state' | 'accountId'> = {
      deps: this.deps,
      run: stored.run,
      state: stored.state,
      accountId,
    };
    const step = stored.state.pendingStepId ? this.runs.stepById(stored.state.pendingStepId) : undefined;
    if (step && step.step_details.type === 'tool_calls') {
      for (const call of step.step_details.tool_calls) {
        if (call.type === 'function' && byId.has(call.id)) call.function.output = byId.get(call.id)!;
      }
      step.status = 'completed';
      step.completed_at = nowSeconds();
      this.runs.saveStep(step);
      this.deps.events.emit(id, 'thread.run.step.completed', presentStep(step, stored.state.include ?? []));
    }
    for (const call of pending) stored.state.transcript.push({ role: 'tool', tool_call_id: call.id, content: byId.get(call.id)! });
    stored.state.pendingStepId = undefined;
    stored.run.required_action = null;
    stored.run.status = 'queued';
    saveAndEmit(context);
    this.schedule(id);
    return { run: stored.run, events: events && this.withDone(events) };
  }

  private schedule(runId: string): void {
    if (this.closed) return;
    const controller = new AbortController();
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => executeRun(this.deps, runId, controller.signal))
      .catch((error) => this.deps.log.error(`run ${runId} crashed: ${(error as Error).message}`))
      .finally(() => this.active.delete(runId));
    this.active.set(runId, { controller, done });
  }

  private async *withDone(events: AsyncIterable<AssistantStreamEvent>): AsyncIterable<AssistantStreamEvent> {
    yield* events;
    yield { event: 'done', data: '[DONE]' };
  }
}
