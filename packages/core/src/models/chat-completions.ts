import { NotFoundError } from '../errors';
import { newId } from '../internal/ids';
import { ChatCompletionMessages } from './chat-completion-messages';
import { ChatCompletionStream } from './chat-completion-stream';
import { readChatCompletionParams, toChatCompletion } from './chat-completions-wire';
import type { StoredCompletion, StoredCompletionsRepository } from './stored-completions';
import type { ChatAdapterContract } from './types';
import type {
  ChatCompletionCreateParams,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from './wire/chat-completion-params';
import type {
  ChatCompletion,
  ChatCompletionDeleted,
  ChatCompletionListParams,
  ChatCompletionsPage,
  ChatCompletionUpdateParams,
} from './wire/chat-completions';

/** What `fathom.chat.completions` and its `.messages` share: the model router and the stored completions. */
export interface ChatCompletionsContext {
  router: Pick<ChatAdapterContract, 'complete' | 'stream'> & { resolveModel(model: string): string };
  repository: StoredCompletionsRepository;
}

export interface ChatCompletionRequestOptions {
  /** Aborts the upstream call, e.g. when the client that asked went away. */
  signal?: AbortSignal;
}

/**
 * `fathom.chat.completions` (OpenAI's `chat.completions`): a model call in the chat-completions wire
 * format, answered whole or as a stream, and the completions kept with `store: true` (read, listed with
 * filters, their metadata replaced, deleted; their request messages in `.messages`). Token usage of
 * every call is recorded for the account.
 */
export class ChatCompletions {
  /** The request messages of stored completions. */
  readonly messages: ChatCompletionMessages;
  readonly #context: ChatCompletionsContext;

  constructor(context: ChatCompletionsContext) {
    this.#context = context;
    this.messages = new ChatCompletionMessages(context);
  }

  /**
   * Calls the model. With `stream: true` the answer is a `ChatCompletionStream` of chunks, returned once
   * the upstream answered (its refusals are thrown here, before anything streamed).
   */
  create(
    accountId: string,
    params: ChatCompletionCreateParamsNonStreaming,
    options?: ChatCompletionRequestOptions,
  ): Promise<ChatCompletion>;
  create(
    accountId: string,
    params: ChatCompletionCreateParamsStreaming,
    options?: ChatCompletionRequestOptions,
  ): Promise<ChatCompletionStream>;
  create(
    accountId: string,
    params: ChatCompletionCreateParams,
    options?: ChatCompletionRequestOptions,
  ): Promise<ChatCompletion | ChatCompletionStream>;
  async create(
    accountId: string,
    params: ChatCompletionCreateParams,
    options: ChatCompletionRequestOptions = {},
  ): Promise<ChatCompletion | ChatCompletionStream> {
    const call = readChatCompletionParams(params);
    const { router, repository } = this.#context;
    const callOptions = { signal: options.signal, accountId };
    const save = call.store
      ? (completion: ChatCompletion) =>
          repository.insert({ accountId, completion, messages: call.request.messages, metadata: call.metadata })
      : undefined;
    if (!call.stream) {
      const completion = toChatCompletion(await router.complete(call.request, callOptions));
      await save?.(completion);
      return completion;
    }
    return ChatCompletionStream.start(router.stream(call.request, callOptions), {
      id: newId('chatcmpl-'),
      // Chunks name the model that answers (an alias or a bare id resolved to `<vendor>/<model>`).
      model: router.resolveModel(call.request.model),
      includeUsage: call.includeUsage,
      save,
    });
  }

  /** A stored completion with its metadata. */
  async retrieve(accountId: string, completionId: string): Promise<ChatCompletion> {
    const stored = await this.#get(accountId, completionId);
    return { ...stored.completion, metadata: stored.metadata };
  }

  /** Replaces the metadata of a stored completion (the only field that changes; `null` clears it). */
  async update(accountId: string, completionId: string, params: ChatCompletionUpdateParams): Promise<ChatCompletion> {
    const stored = await this.#get(accountId, completionId);
    const metadata = params.metadata ?? {};
    await this.#context.repository.setMetadata(accountId, completionId, metadata);
    return { ...stored.completion, metadata };
  }

  /** A page of the account's stored completions, oldest first unless `order: 'desc'`, filtered by `model` and `metadata`. */
  list(accountId: string, params: ChatCompletionListParams = {}): Promise<ChatCompletionsPage> {
    return this.#context.repository.page(accountId, {
      limit: params.limit,
      order: params.order ?? 'asc',
      after: params.after,
      model: params.model || undefined,
      metadata: params.metadata,
    });
  }

  async delete(accountId: string, completionId: string): Promise<ChatCompletionDeleted> {
    if (!(await this.#context.repository.delete(accountId, completionId))) throw new NotFoundError('chat completion', completionId);
    return { id: completionId, object: 'chat.completion.deleted', deleted: true };
  }

  async #get(accountId: string, completionId: string): Promise<StoredCompletion> {
    const stored = await this.#context.repository.get(accountId, completionId);
    if (!stored) throw new NotFoundError('chat completion', completionId);
    return stored;
  }
}
