import { UpstreamError } from '../../../errors';
import { SseDecoder, type DecodedSseEvent } from '../../sse-decoder';
import type { ChatLogprobs, ChatRequest, ChatStreamPart, ChatUsage, FinishReason } from '../../types';
import { toUpstreamError, UpstreamClient } from '../../upstream-client';
import { ZERO_USAGE, type ChatProvider, type ProviderChatResult, type ProviderEmbeddings } from '../chat-provider';

export interface OpenAICompatibleProviderOptions {
  vendor: string;
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Headers timeout and longest silence in a body, ms; default 120000. */
  timeoutMs?: number;
  /** Most connections to the upstream; default unlimited. */
  connections?: number;
}

/** What a stream has seen so far: the finish reason and usage arrive before [DONE]. */
interface StreamState {
  finished: boolean;
  reason?: FinishReason;
  totals?: ChatUsage;
  /** A failure found while decoding, thrown once the parts before it have left. */
  error?: unknown;
}

// The parts of an OpenAI-compatible server's answers Fathom reads, as OpenAI documents them. Servers
// differ (Ollama, vLLM, llama.cpp…), so every field is optional and read defensively.
interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}
interface OpenAIMessage {
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments?: string } }>;
}
interface OpenAIChatCompletion {
  choices?: Array<{ message?: OpenAIMessage; finish_reason?: string | null; logprobs?: unknown }>;
  usage?: OpenAIUsage | null;
}
interface OpenAIChunkDelta {
  content?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
}
interface OpenAIChatChunk {
  error?: { message?: string };
  usage?: OpenAIUsage | null;
  choices?: Array<{ delta?: OpenAIChunkDelta; finish_reason?: string | null; logprobs?: unknown }>;
}
interface OpenAIModelList {
  data?: Array<{ id?: unknown }>;
}
interface OpenAIEmbeddingList {
  data?: Array<{ index: number; embedding: number[] }>;
  usage?: OpenAIUsage;
}

const FINISH_REASONS = new Set<FinishReason>(['stop', 'length', 'tool_calls', 'content_filter']);

function finishReason(value: unknown): FinishReason {
  if (value === 'function_call') return 'tool_calls';
  return FINISH_REASONS.has(value as FinishReason) ? (value as FinishReason) : 'stop';
}

function usage(value: OpenAIUsage | null | undefined): ChatUsage {
  if (!value) return { ...ZERO_USAGE };
  const prompt = Number(value.prompt_tokens) || 0;
  const completion = Number(value.completion_tokens) || 0;
  const cached = Math.min(prompt, Number(value.prompt_tokens_details?.cached_tokens) || 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: Number(value.total_tokens) || prompt + completion,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}

/**
 * `choices[].logprobs` as the upstream sent it (OpenAI, vLLM and llama.cpp use OpenAI's shape), or
 * undefined when it sent none. Token entries are passed on as they are.
 */
function logprobsOf(value: unknown): ChatLogprobs | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { content, refusal } = value as { content?: unknown; refusal?: unknown };
  if (!Array.isArray(content) && !Array.isArray(refusal)) return undefined;
  return {
    content: Array.isArray(content) ? (content as ChatLogprobs['content']) : null,
    refusal: Array.isArray(refusal) ? (refusal as ChatLogprobs['refusal']) : null,
  };
}

const withLogprobs = (logprobs: ChatLogprobs | undefined) => (logprobs ? { logprobs } : {});

/** The wire body for an OpenAI-compatible `/chat/completions`: the request as it is, with the upstream model name. */
export function toOpenAIBody(model: string, request: ChatRequest, stream: boolean): Record<string, unknown> {
  const { model: _model, extra, ...rest } = request;
  const body: Record<string, unknown> = { ...extra, ...rest, model };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  } else delete body.stream;
  return body;
}

/** Any OpenAI-compatible upstream: OpenAI, Ollama, vLLM, LM Studio, llama.cpp server, OpenRouter. */
export class OpenAICompatibleProvider implements ChatProvider {
  readonly vendor: string;
  readonly type = 'openai' as const;
  private readonly client: UpstreamClient;

  constructor(options: OpenAICompatibleProviderOptions) {
    this.vendor = options.vendor;
    this.client = new UpstreamClient({
      name: options.vendor,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      connections: options.connections,
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
  }

  async complete(model: string, request: ChatRequest, signal?: AbortSignal): Promise<ProviderChatResult> {
    const body = await this.client.json<OpenAIChatCompletion | null>(
      'POST',
      '/chat/completions',
      toOpenAIBody(model, request, false),
      signal,
    );
    const choice = body?.choices?.[0];
    if (!choice)
      throw new UpstreamError(`Provider '${this.vendor}' answered without choices.`, { status: 502, responseBody: JSON.stringify(body) });
    const message: OpenAIMessage = choice.message ?? {};
    const toolCalls = Array.isArray(message.tool_calls) && message.tool_calls.length ? message.tool_calls : undefined;
    return {
      message: {
        role: 'assistant',
        content: typeof message.content === 'string' ? message.content : null,
        ...(toolCalls
          ? {
              tool_calls: toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.function?.name, arguments: call.function?.arguments ?? '' },
              })),
            }
          : {}),
      },
      finishReason: finishReason(choice.finish_reason),
      usage: usage(body?.usage),
      ...withLogprobs(logprobsOf(choice.logprobs)),
    };
  }

  async *stream(model: string, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamPart> {
    const response = await this.client.request('POST', '/chat/completions', toOpenAIBody(model, request, true), signal);
    const state: StreamState = { finished: false };
    const decoder = new SseDecoder();
    try {
      // Events are decoded per network chunk, and the parts of one chunk leave together. The finish part
      // leaves at [DONE]; the body is still read to its end afterwards, because leaving early would
      // destroy the kept-alive connection.
      for await (const chunk of response.body) {
        const parts = this.parts(decoder.push(chunk), state);
        if (parts.length) yield* parts;
        if (state.error) throw state.error;
      }
      const parts = this.parts(decoder.end(), state);
      if (parts.length) yield* parts;
      if (state.error) throw state.error;
    } catch (error) {
      throw error instanceof SyntaxError
        ? new UpstreamError(`Provider '${this.vendor}' sent malformed stream data.`, { status: 502 })
        : toUpstreamError(error, this.vendor, '/chat/completions');
    }
    if (!state.finished) yield { type: 'finish', finishReason: state.reason ?? 'stop', ...(state.totals ? { usage: state.totals } : {}) };
  }

  /**
   * The stream parts of some decoded events (nothing after [DONE]). A failure (an error event, bad JSON)
   * goes to `state.error` after the parts before it, so those still leave first.
   */
  private parts(events: DecodedSseEvent[], state: StreamState): ChatStreamPart[] {
    const parts: ChatStreamPart[] = [];
    try {
      this.collect(events, state, parts);
    } catch (error) {
      state.error = error;
    }
    return parts;
  }

  private collect(events: DecodedSseEvent[], state: StreamState, parts: ChatStreamPart[]): void {
    for (const event of events) {
      if (state.finished) break;
      if (event.data === '[DONE]') {
        state.finished = true;
        parts.push({ type: 'finish', finishReason: state.reason ?? 'stop', ...(state.totals ? { usage: state.totals } : {}) });
        break;
      }
      const chunk = JSON.parse(event.data) as OpenAIChatChunk;
      if (chunk.error)
        throw new UpstreamError(`Provider '${this.vendor}' failed mid-stream: ${chunk.error.message ?? 'unknown error'}`, {
          status: 502,
        });
      if (chunk.usage) state.totals = usage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta: OpenAIChunkDelta = choice.delta ?? {};
      const logprobs = logprobsOf(choice.logprobs);
      if ((typeof delta.content === 'string' && delta.content) || logprobs) {
        parts.push({ type: 'text-delta', text: typeof delta.content === 'string' ? delta.content : '', ...withLogprobs(logprobs) });
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          parts.push({
            type: 'tool-call-delta',
            index: call.index ?? 0,
            ...(call.id ? { id: call.id } : {}),
            ...(call.function?.name ? { name: call.function.name } : {}),
            ...(call.function?.arguments ? { argumentsDelta: call.function.arguments } : {}),
          });
        }
      }
      if (choice.finish_reason) state.reason = finishReason(choice.finish_reason);
    }
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const body = await this.client.json<OpenAIModelList | null>('GET', '/models', undefined, signal);
    return Array.isArray(body?.data) ? body.data.map((entry) => String(entry.id)) : [];
  }

  async embed(
    model: string,
    input: string[] | number[][],
    options: { dimensions?: number; user?: string; signal?: AbortSignal },
  ): Promise<ProviderEmbeddings> {
    const body = await this.client.json<OpenAIEmbeddingList | null>(
      'POST',
      '/embeddings',
      {
        model,
        input,
        encoding_format: 'float',
        ...(options.dimensions ? { dimensions: options.dimensions } : {}),
        ...(options.user ? { user: options.user } : {}),
      },
      options.signal,
    );
    const data = [...(body?.data ?? [])].sort((a, b) => a.index - b.index);
    const prompt = Number(body?.usage?.prompt_tokens) || 0;
    return {
      embeddings: data.map((entry) => entry.embedding),
      usage: { prompt_tokens: prompt, total_tokens: Number(body?.usage?.total_tokens) || prompt },
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
