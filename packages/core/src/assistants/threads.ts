import { newId, nowSeconds } from '../internal/ids';
import { type AssistantsContext, requireAssistant, requireThread } from './assistants-context';
import { type RunRequestOptions, type StartedRun, startRun } from './create-run';
import { ThreadMessages } from './messages';
import { checkContentTotal, checkModel, toToolResources } from './normalize-input';
import { ThreadRuns } from './runs';
import { attachToNewThread, checkAttachments, checkToolResources } from './thread-attachments';
import { fileSearchAttachments, newClientMessage } from './thread-input';
import type { AssistantStreamEvent, Run } from './types';
import type { Thread, ThreadCreateAndRunParams, ThreadCreateParams, ThreadDeleted, ThreadUpdateParams } from './wire/threads';

/**
 * `fathom.threads`: threads (OpenAI's `beta.threads`) with their `messages` and `runs`, and
 * `createAndRun`. The vector stores and files a thread names must be the account's (404 naming the
 * field, like an unknown id, and nothing is written); files attached for `file_search` go into the
 * thread's own vector store, created on demand.
 */
export class Threads {
  readonly messages: ThreadMessages;
  readonly runs: ThreadRuns;
  readonly #context: AssistantsContext;

  constructor(context: AssistantsContext) {
    this.#context = context;
    this.messages = new ThreadMessages(context);
    this.runs = new ThreadRuns(context);
  }

  /** Creates a thread with its messages; files attached for `file_search` go into the thread's vector store. */
  create(accountId: string, params: ThreadCreateParams = {}): Promise<Thread> {
    checkMessagesContent(params, '');
    return this.#create(accountId, params, '');
  }

  retrieve(accountId: string, threadId: string): Promise<Thread> {
    return requireThread(this.#context, accountId, threadId);
  }

  /** Changes the metadata and merges the `tool_resources` given into the thread's (by resource). */
  async update(accountId: string, threadId: string, params: ThreadUpdateParams): Promise<Thread> {
    const thread = await this.retrieve(accountId, threadId);
    if (params.metadata !== undefined) thread.metadata = params.metadata ?? {};
    if (params.tool_resources !== undefined) {
      const resources = toToolResources(params.tool_resources);
      await checkToolResources(this.#context.stores, accountId, resources, 'tool_resources');
      thread.tool_resources = { ...thread.tool_resources, ...resources };
    }
    await this.#context.deps.threads.saveThread(thread);
    return thread;
  }

  /** Deletes a thread with its messages, runs and steps; a run executing here is stopped first. */
  async delete(accountId: string, threadId: string): Promise<ThreadDeleted> {
    const { deps, worker } = this.#context;
    await this.retrieve(accountId, threadId);
    const active = await deps.runs.activeRunOf(threadId);
    if (active) worker.cancel(active.id);
    await deps.db.transaction(async (tx) => {
      await deps.runs.in(tx).deleteThreadRuns(threadId);
      await deps.threads.in(tx).deleteThread(threadId);
    });
    return { id: threadId, object: 'thread.deleted', deleted: true };
  }

  /** Creates a thread (with its messages) and a run on it; answers the queued run, which executes in the background. */
  async createAndRun(accountId: string, params: ThreadCreateAndRunParams, options: RunRequestOptions = {}): Promise<Run> {
    return (await this.#createAndRun(accountId, params, options, false)).run;
  }

  /** Like `createAndRun`, as OpenAI's event stream: `thread.created`, `thread.run.created` … `thread.run.completed`, then `done`. */
  async createAndRunStream(
    accountId: string,
    params: ThreadCreateAndRunParams,
    options: RunRequestOptions = {},
  ): Promise<AsyncIterable<AssistantStreamEvent>> {
    return (await this.#createAndRun(accountId, params, options, true)).events!;
  }

  async #createAndRun(
    accountId: string,
    params: ThreadCreateAndRunParams,
    options: RunRequestOptions,
    stream: boolean,
  ): Promise<StartedRun> {
    checkMessagesContent(params.thread ?? {}, 'thread.');
    checkModel(this.#context.deps.chat, params.model);
    await requireAssistant(this.#context, accountId, params.assistant_id, 'assistant_id');
    const toolResources = toToolResources(params.tool_resources);
    await checkToolResources(this.#context.stores, accountId, toolResources, 'tool_resources');
    const { thread: threadParams, tool_resources: _toolResources, ...runParams } = params;
    const thread = await this.#create(accountId, threadParams ?? {}, 'thread.');
    try {
      return await startRun(this.#context, accountId, thread.id, runParams, options, stream, {
        created: stream ? thread : undefined,
        toolResources,
      });
    } catch (error) {
      await this.delete(accountId, thread.id);
      throw error;
    }
  }

  /** Creates a thread; `prefix` names its fields in errors (`thread.` for createAndRun). Checks every id before writing anything. */
  async #create(accountId: string, params: ThreadCreateParams, prefix: string): Promise<Thread> {
    const { deps, stores } = this.#context;
    const messages = params.messages ?? [];
    const draft: Thread = {
      id: newId('thread_'),
      object: 'thread',
      created_at: nowSeconds(),
      metadata: params.metadata ?? {},
      tool_resources: toToolResources(params.tool_resources) ?? {},
    };
    const prepared = messages.map((message) => newClientMessage(draft.id, message));
    await checkToolResources(stores, accountId, draft.tool_resources, `${prefix}tool_resources`);
    for (const [index, message] of prepared.entries()) await checkAttachments(stores, accountId, message, `${prefix}messages[${index}].`);
    const thread = await attachToNewThread(stores, accountId, draft, fileSearchAttachments(prepared));
    await deps.db.transaction(async (tx) => {
      await deps.threads.in(tx).insertThread(accountId, thread);
      for (const message of prepared) await deps.threads.in(tx).insertMessage(accountId, message);
    });
    return thread;
  }
}

/** The text parts of each message of a new thread together at most 256,000 characters. */
function checkMessagesContent(params: ThreadCreateParams, prefix: string): void {
  for (const [index, message] of (params.messages ?? []).entries())
    checkContentTotal(message.content, `${prefix}messages[${index}].content`);
}
