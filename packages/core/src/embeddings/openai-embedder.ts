import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors';
import { requestText } from '../transport';
import type { Embedder } from './embedder';
import { approximateSubwordSpans, normalizeInPlace } from './text-tokens';

/** Default bound of one embeddings answer. */
const EMBEDDINGS_MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface OpenAICompatibleEmbedderOptions {
  /** Base URL ending in `/v1`; `FATHOM_EMBEDDING_BASE_URL`, else `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL: string;
  /** Bearer key; `FATHOM_EMBEDDING_API_KEY`, else `OPENAI_API_KEY`; none for local servers such as Ollama. */
  apiKey?: string;
  /** Model name sent upstream, e.g. `text-embedding-3-small` or `nomic-embed-text`. */
  model: string;
  /** Vector length the model returns (`FATHOM_EMBEDDING_DIMENSIONS`, or probed once by `createEmbedder`). */
  dimensions: number;
  /** Input window in (approximate) tokens; `FATHOM_EMBEDDING_MAX_TOKENS`, default 512. */
  maxInputTokens?: number;
  /** Texts per request; `FATHOM_EMBEDDING_BATCH_SIZE`, default 64. */
  batchSize?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Per-request timeout in ms; default 60 000. */
  timeoutMs?: number;
  /** Attempts for retryable failures (429, 5xx, network); default 3. */
  maxAttempts?: number;
  /** Most bytes of one answer; default 64 MiB (a batch of 64 vectors of 3072 floats is about 5 MB). Past it: 502. */
  maxBodyBytes?: number;
  /** undici dispatcher (tests, proxies). */
  dispatcher?: Dispatcher;
}

/**
 * Any OpenAI-compatible `/v1/embeddings` (OpenAI, Ollama, vLLM, LM Studio...), batched, retried on
 * 429/5xx with backoff, re-normalised (not every server normalises). It has no tokenizer of the
 * model at hand, so token counts are approximated by words cut into 4-character pieces, which
 * over-counts slightly for English and keeps chunks inside the window.
 */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly maxInputTokens: number;
  private readonly options: Required<Omit<OpenAICompatibleEmbedderOptions, 'apiKey' | 'dispatcher'>> &
    Pick<OpenAICompatibleEmbedderOptions, 'apiKey' | 'dispatcher'>;

  constructor(options: OpenAICompatibleEmbedderOptions) {
    if (!options.baseURL) throw new Error('OpenAICompatibleEmbedder needs a baseURL.');
    if (!options.model) throw new Error('OpenAICompatibleEmbedder needs a model.');
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) {
      throw new Error('OpenAICompatibleEmbedder needs the model dimensions (a positive integer).');
    }
    this.options = {
      headers: {},
      timeoutMs: 60_000,
      maxAttempts: 3,
      maxBodyBytes: EMBEDDINGS_MAX_BODY_BYTES,
      batchSize: 64,
      maxInputTokens: 512,
      ...(Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as OpenAICompatibleEmbedderOptions),
      baseURL: options.baseURL.replace(/\/+$/, ''),
    };
    this.dimensions = options.dimensions;
    this.maxInputTokens = this.options.maxInputTokens;
    this.id = `openai:${options.model}:${options.dimensions}`;
  }

  async embed(options: { values: string[]; signal?: AbortSignal }): Promise<{ embeddings: Float32Array[] }> {
    const embeddings: Float32Array[] = [];
    for (let start = 0; start < options.values.length; start += this.options.batchSize) {
      const batch = options.values.slice(start, start + this.options.batchSize);
      embeddings.push(...(await requestEmbeddings(this.options, batch, options.signal)));
    }
    for (const vector of embeddings) {
      if (vector.length !== this.dimensions) {
        throw new UpstreamError(
          `Embedding model ${this.options.model} returned ${vector.length} dimensions, expected ${this.dimensions}.`,
          { url: `${this.options.baseURL}/embeddings` },
        );
      }
    }
    return { embeddings };
  }

  countTokens(text: string): number {
    return approximateSubwordSpans(text).length;
  }

  tokenize(text: string): Array<{ start: number; end: number }> {
    return approximateSubwordSpans(text);
  }
}

type RequestOptions = Pick<
  OpenAICompatibleEmbedderOptions,
  'baseURL' | 'apiKey' | 'model' | 'headers' | 'timeoutMs' | 'maxAttempts' | 'maxBodyBytes' | 'dispatcher'
>;

/**
 * POSTs one batch to `{baseURL}/embeddings` and returns vectors in input order, normalised. 429, 5xx
 * and network failures are retried with backoff (or the upstream's `retry-after`); the waits end at
 * once when `signal` aborts.
 */
export async function requestEmbeddings(options: RequestOptions, input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const url = `${options.baseURL.replace(/\/+$/, '')}/embeddings`;
  const { text } = await requestText({
    url,
    method: 'POST',
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    json: { model: options.model, input, encoding_format: 'float' },
    signal,
    what: `The embedding service at ${url}`,
    timeoutMs: options.timeoutMs ?? 60_000,
    maxBodyBytes: options.maxBodyBytes ?? EMBEDDINGS_MAX_BODY_BYTES,
    dispatcher: options.dispatcher,
    retry: { maxRetries: (options.maxAttempts ?? 3) - 1, initialDelayMs: 250 },
  });
  return parseEmbeddings(text, input.length, url);
}

function parseEmbeddings(text: string, expected: number, url: string): Float32Array[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UpstreamError(`Embedding response from ${url} is not JSON.`, { url, responseBody: text.slice(0, 2000) });
  }
  const data: unknown = (parsed as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new UpstreamError(
      `Embedding response from ${url} has ${Array.isArray(data) ? data.length : 'no'} vectors, expected ${expected}.`,
      {
        url,
        responseBody: text.slice(0, 2000),
      },
    );
  }
  const vectors: Float32Array[] = new Array(expected);
  data.forEach((item: unknown, position: number) => {
    const { index: given, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const index = typeof given === 'number' && Number.isInteger(given) ? given : position;
    if (!Array.isArray(embedding) || index < 0 || index >= expected) {
      throw new UpstreamError(`Embedding response from ${url} has a malformed item at ${position}.`, { url });
    }
    vectors[index] = normalizeInPlace(Float32Array.from(embedding as number[]));
  });
  return vectors;
}
