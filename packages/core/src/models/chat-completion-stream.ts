import { ChatCompletionChunks } from './chat-completions-wire';
import { CompletionAccumulator } from './stored-completions';
import type { ChatStreamPart } from './types';
import type { ChatCompletion, ChatCompletionChunk } from './wire/chat-completions';

/** What a stream needs besides its parts: the answer's id and model, and what to do once it ends. */
export interface ChatCompletionStreamSetup {
  id: string;
  /** The `<vendor>/<model>` that answers. */
  model: string;
  /** `stream_options.include_usage`: end with a chunk of empty `choices` carrying the usage. */
  includeUsage: boolean;
  /** Keep the assembled completion (`store: true`); awaited before the last chunk leaves. */
  save?: (completion: ChatCompletion) => Promise<void>;
}

/**
 * A streamed chat completion (`stream: true`): `chat.completion.chunk`s, as openai-node's
 * `Stream<ChatCompletionChunk>`. The upstream was contacted before this object exists, so its refusals
 * (429, 5xx, unreachable) came from `create()` with nothing streamed. Read it once, as chunk objects
 * (`for await`) or as their JSON text (`jsonChunks()`, what the HTTP edge writes: the same bytes as
 * `JSON.stringify` of each chunk, built without an object per text delta).
 */
export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  readonly #iterator: AsyncIterator<ChatStreamPart>;
  readonly #first: IteratorResult<ChatStreamPart>;
  readonly #options: ChatCompletionStreamSetup;
  readonly #chunks: ChatCompletionChunks;
  #read = false;

  private constructor(iterator: AsyncIterator<ChatStreamPart>, first: IteratorResult<ChatStreamPart>, options: ChatCompletionStreamSetup) {
    this.#iterator = iterator;
    this.#first = first;
    this.#options = options;
    this.#chunks = new ChatCompletionChunks(options.id, options.model);
  }

  /** Starts reading `parts`: the first `next()` contacts the upstream, and its errors are thrown here. */
  static async start(parts: AsyncIterable<ChatStreamPart>, options: ChatCompletionStreamSetup): Promise<ChatCompletionStream> {
    const iterator = parts[Symbol.asyncIterator]();
    return new ChatCompletionStream(iterator, await iterator.next(), options);
  }

  /** The completion's id (`chatcmpl-…`), the same in every chunk. */
  get id(): string {
    return this.#chunks.id;
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    const chunks = this.#chunks;
    return this.#produce(
      (part) => chunks.of(part),
      (chunk) => chunk,
    );
  }

  /** Each chunk as JSON text, for a server-sent event's `data:`. */
  jsonChunks(): AsyncIterable<string> {
    const chunks = this.#chunks;
    return {
      [Symbol.asyncIterator]: () =>
        this.#produce(
          (part) => chunks.json(part),
          (chunk) => JSON.stringify(chunk),
        ),
    };
  }

  async *#produce<T>(encodePart: (part: ChatStreamPart) => T, encode: (chunk: ChatCompletionChunk) => T): AsyncGenerator<T> {
    if (this.#read) throw new Error('A chat completion stream can be read once.');
    this.#read = true;
    const { model, includeUsage, save } = this.#options;
    const chunks = this.#chunks;
    const iterator = this.#iterator;
    const stored = save ? new CompletionAccumulator(chunks.id, model, chunks.created) : undefined;
    let finished = false;
    try {
      yield encode(chunks.first());
      for (let next = this.#first; !next.done; next = await iterator.next()) {
        stored?.add(next.value);
        yield encodePart(next.value);
        if (next.value.type === 'finish') break;
      }
      finished = true;
    } finally {
      // A reader that stops early (a client gone) ends the upstream call, which records what it used.
      if (!finished) void iterator.return?.().catch(() => undefined);
    }
    // The provider still reads the upstream body to its end (keeping the connection alive and recording
    // usage); the reader need not wait for that.
    drain(iterator);
    if (stored && save) await save(stored.completion());
    if (includeUsage) yield encode(chunks.usageChunk());
  }
}

/** Reads an iterator to its end in the background, ignoring late errors (the answer is complete). */
function drain(iterator: AsyncIterator<unknown>): void {
  void (async () => {
    while (!(await iterator.next()).done);
  })().catch(() => undefined);
}
