import { currentCallContext } from '../internal/call-context';
import { newId, nowSeconds } from '../internal/ids';
import { type AssistantsContext, requireAssistant, requireThread, assertNoActiveRun, threadBusy } from './assistants-context';
import { toResponseFormat, toToolChoice, toTools } from './normalize-input';
import { emitRun } from './run-context';
import { emptyRunState } from './run-state';
import { attachMessages } from './thread-attachments';
import { newClientMessage } from './thread-input';
import type { Assistant, AssistantStreamEvent, Run, Thread } from './types';
import type { ToolResources } from './wire/assistants';
import type { RunStepInclude } from './wire/run-steps';
import type { RunCreateParams } from './wire/runs';

/** Options of a run-creating call besides its params: the query string of the HTTP request. */
export interface RunRequestOptions {
  /** `include[]`: `step_details.tool_calls[*].file_search.results[*].content` adds passage text to streamed steps. */
  include?: RunStepInclude[];
  /** The same, as the SDK spells the query parameter. */
  'include[]'?: RunStepInclude[];
}

/** The `include[]` values of a query or options object (either spelling). */
export function includeOf(options: RunRequestOptions): RunStepInclude[] {
  return [...new Set([...(options['include[]'] ?? []), ...(options.include ?? [])])];
}

/** What starts a run: a run request, or `createAndRun`'s (with no additional messages). */
export type RunStart = RunCreateParams;

/** What `createAndRun` adds to a run start. */
export interface RunStartExtras {
  /** The thread created for the run, announced first on its stream (`thread.created`). */
  created?: Thread;
  /** `createAndRun`'s `tool_resources`, already checked: replaces the assistant's stores for this run. */
  toolResources?: ToolResources | null;
}

/** A run and, for a streaming call, its events (ending with `done`). */
export interface StartedRun {
  run: Run;
  events?: AsyncIterable<AssistantStreamEvent>;
}

/**
 * A queued run object for `threadId`: the assistant's model, instructions and tools unless the request
 * overrides them; `additional_instructions` is appended to the instructions.
 */
export function newRunObject(assistant: Assistant, threadId: string, params: Omit<RunStart, 'assistant_id'>, expirySeconds: number): Run {
  const base = params.instructions ?? assistant.instructions ?? '';
  const instructions = [base, params.additional_instructions ?? ''].filter((part) => part).join('\n\n');
  const created = nowSeconds();
  return {
    id: newId('run_'),
    object: 'thread.run',
    created_at: created,
    thread_id: threadId,
    assistant_id: assistant.id,
    status: 'queued',
    required_action: null,
    last_error: null,
    expires_at: created + expirySeconds,
    started_at: null,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    incomplete_details: null,
    model: params.model || assistant.model,
    instructions,
    tools: params.tools ? toTools(params.tools) : assistant.tools,
    metadata: params.metadata ?? {},
    usage: null,
    temperature: params.temperature ?? assistant.temperature ?? 1,
    top_p: params.top_p ?? assistant.top_p ?? 1,
    max_prompt_tokens: params.max_prompt_tokens ?? null,
    max_completion_tokens: params.max_completion_tokens ?? null,
    truncation_strategy: params.truncation_strategy
      ? { type: params.truncation_strategy.type, last_messages: params.truncation_strategy.last_messages ?? null }
      : { type: 'auto', last_messages: null },
    response_format: params.response_format ? toResponseFormat(params.response_format) : (assistant.response_format ?? 'auto'),
    tool_choice: toToolChoice(params.tool_choice),
    parallel_tool_calls: params.parallel_tool_calls ?? true,
  };
}

/** The thread got an active run between the check and the insert (another request, maybe another process). */
class ThreadBusy extends Error {}

/**
 * Creates a run on a saved thread and executes it in this process: its additional messages (attachments
 * put into the thread's store) and the run are written in one transaction, refused when the thread has
 * an active run. With `stream`, the run's events are collected from before it is written; a thread
 * created for it (`extras.created`) is announced first. Only the declared fields of `params` are read.
 */
export async function startRun(
  context: AssistantsContext,
  accountId: string,
  threadId: string,
  params: RunStart,
  options: RunRequestOptions,
  stream: boolean,
  extras: RunStartExtras = {},
): Promise<StartedRun> {
  const { created } = extras;
  const { deps } = context;
  await requireThread(context, accountId, threadId);
  await assertNoActiveRun(context, threadId, 'create a run on');
  const assistant = await requireAssistant(context, accountId, params.assistant_id, 'assistant_id');
  const run = newRunObject(assistant, threadId, params, context.expirySeconds);
  const additional = (params.additional_messages ?? []).map((message) => newClientMessage(threadId, message));
  const state = emptyRunState();
  state.include = includeOf(options);
  state.toolResources = extras.toolResources ?? undefined;
  await attachMessages(
    context.stores,
    deps.threads,
    accountId,
    threadId,
    additional,
    additional.map((_, index) => `additional_messages[${index}].`),
  );
  const events = stream ? deps.events.watch(run.id) : undefined;
  // The run and its additional messages are written together: a thread that got another run meanwhile gets neither.
  const inserted = await deps.db
    .transaction(async (tx) => {
      for (const message of additional) await deps.threads.in(tx).insertMessage(accountId, message);
      if (!(await deps.runs.in(tx).insert(accountId, run, state, context.worker.lease(), currentCallContext()?.keyId ?? null)))
        throw new ThreadBusy();
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof ThreadBusy) return false;
      throw error;
    });
  if (!inserted) {
    events?.close();
    throw threadBusy('create a run on', threadId, (await deps.runs.activeRunOf(threadId))?.id ?? 'that is active');
  }
  if (created) deps.events.emit(run.id, 'thread.created', created);
  emitRun({ deps, run }, 'created');
  emitRun({ deps, run }, 'queued');
  context.worker.execute(run.id);
  return { run, events: events && withDone(events) };
}

/** A run's events, then `done` (data `[DONE]`), as OpenAI ends an assistant stream. */
export async function* withDone(events: AsyncIterable<{ event: string; data: unknown }>): AsyncIterable<AssistantStreamEvent> {
  yield* events as AsyncIterable<AssistantStreamEvent>;
  yield { event: 'done', data: '[DONE]' };
}
