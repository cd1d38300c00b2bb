import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, ChatUsage } from './types';
import type { ChatCompletionCreateParams, ChatCompletionMessageParam } from './wire/chat-completion-params';
import type { ChatCompletion, ChatCompletionChunk } from './wire/chat-completions';

/** The fields of the request Fathom reads itself; every other field is passed through to OpenAI-compatible upstreams. */
const READ = new Set<string>([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'response_format',
  'seed',
  'user',
  'logprobs',
  'top_logprobs',
  // Answered by Fathom (one choice, the stream, storage) or refused by the schema: never forwarded.
  'n',
  'stream',
  'stream_options',
  'store',
  'metadata',
  'modalities',
  'audio',
  'functions',
  'function_call',
]);

/** A chat completion request as the ChatAdapter takes it, with the stream and storage settings. */
export interface ChatCompletionsCall {
  request: ChatRequest;
  stream: boolean;
  includeUsage: boolean;
  /** `store: true`: keep the completion (`GET /v1/chat/completions/{id}`). */
  store: boolean;
  metadata: Record<string, string>;
}

/**
 * Maps validated params (`ChatCompletionCreateParams`: the schema checked types, ranges, roles, tools
 * and what Fathom refuses) to the ChatAdapter's request, with the one rule a schema cannot say:
 * `top_logprobs` above 0 needs `logprobs`. `null` means absent. Fields Fathom does not read (vLLM's
 * `top_k`, Ollama's `options`, penalties, newer OpenAI parameters…) go to `extra`, which reaches
 * OpenAI-compatible upstreams unchanged; a provider that cannot honour one answers 400 naming it. The
 * model naming a configured vendor is checked when the ChatAdapter routes the call.
 */
export function readChatCompletionParams(params: ChatCompletionCreateParams): ChatCompletionsCall {
  if (params.top_logprobs && params.logprobs !== true)
    throw new InvalidRequestError(`Invalid 'top_logprobs': it needs 'logprobs' set to true.`, 'top_logprobs');
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (!READ.has(key) && value !== null && value !== undefined) extra[key] = value;
  const request: ChatRequest = {
    model: params.model,
    messages: params.messages.map(toChatMessage),
    tools: params.tools ?? undefined,
    tool_choice: params.tool_choice ?? undefined,
    temperature: params.temperature ?? undefined,
    top_p: params.top_p ?? undefined,
    max_tokens: params.max_tokens ?? undefined,
    max_completion_tokens: params.max_completion_tokens ?? undefined,
    stop: params.stop ?? undefined,
    response_format: params.response_format ?? undefined,
    seed: params.seed ?? undefined,
    user: params.user ?? undefined,
    logprobs: params.logprobs ?? undefined,
    top_logprobs: params.top_logprobs ?? undefined,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return {
    request,
    stream: params.stream === true,
    includeUsage: params.stream_options?.include_usage === true,
    store: params.store === true,
    metadata: params.metadata ?? {},
  };
}

/** The fields of a request message the ChatAdapter reads (others, e.g. an assistant turn's `refusal`, are not forwarded). */
function toChatMessage(message: ChatCompletionMessageParam): ChatMessage {
  return {
    role: message.role,
    content: message.content ?? null,
    ...('name' in message && message.name ? { name: message.name } : {}),
    ...('tool_calls' in message && message.tool_calls ? { tool_calls: message.tool_calls } : {}),
    ...('tool_call_id' in message ? { tool_call_id: message.tool_call_id } : {}),
  };
}

/** A ChatResult as the `chat.completion` object. */
export function toChatCompletion(result: ChatResult, created = nowSeconds()): ChatCompletion {
  return {
    id: result.id,
    object: 'chat.completion' as const,
    created,
    model: result.model,
    choices: [
      { index: 0, message: { ...result.message, refusal: null }, logprobs: result.logprobs ?? null, finish_reason: result.finishReason },
    ],
    usage: result.usage,
  };
}

/** Encodes stream parts as `chat.completion.chunk` objects (the first carries the role). */
export class ChatCompletionChunks {
  private readonly base: { id: string; object: 'chat.completion.chunk'; created: number; model: string };
  /** `{"id":…,"model":…,"choices":[{"index":0,"delta":` — the JSON text every content chunk starts with. */
  private readonly deltaPrefix: string;
  usage?: ChatUsage;

  constructor(id: string, model: string, created = nowSeconds()) {
    this.base = { id, object: 'chat.completion.chunk', created, model };
    this.deltaPrefix = `${JSON.stringify(this.base).slice(0, -1)},"choices":[{"index":0,"delta":`;
  }

  get id(): string {
    return this.base.id;
  }

  get created(): number {
    return this.base.created;
  }

  first(): ChatCompletionChunk {
    return { ...this.base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] };
  }

  of(part: ChatStreamPart): ChatCompletionChunk {
    if (part.type === 'text-delta')
      return { ...this.base, choices: [{ index: 0, delta: { content: part.text }, logprobs: part.logprobs ?? null, finish_reason: null }] };
    if (part.type === 'tool-call-delta') {
      const call = {
        index: part.index,
        ...(part.id ? { id: part.id, type: 'function' as const } : {}),
        function: { ...(part.name ? { name: part.name } : {}), arguments: part.argumentsDelta ?? '' },
      };
      return { ...this.base, choices: [{ index: 0, delta: { tool_calls: [call] }, logprobs: null, finish_reason: null }] };
    }
    this.usage = part.usage;
    return { ...this.base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: part.finishReason }] };
  }

  /**
   * `JSON.stringify(this.of(part))`, with the same text, for the streaming hot path: a text delta (most
   * parts) is the shared prefix plus the escaped text, with no object built or walked per chunk.
   */
  json(part: ChatStreamPart): string {
    if (part.type !== 'text-delta' || part.logprobs) return JSON.stringify(this.of(part));
    return `${this.deltaPrefix}{"content":${JSON.stringify(part.text)}},"logprobs":null,"finish_reason":null}]}`;
  }

  /** The `stream_options.include_usage` chunk: empty choices and the usage. */
  usageChunk(): ChatCompletionChunk {
    return { ...this.base, choices: [], usage: this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
  }
}
