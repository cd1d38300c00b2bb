import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import { validateMetadata } from '../internal/metadata';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, ChatUsage } from './types';

/** Fields of the body Fathom reads itself; every other field is passed through to the upstream. */
const KNOWN = new Set([
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
  'n',
  'stream',
  'stream_options',
  'store',
  'metadata',
]);
/** Parameters whose results Fathom's answer cannot carry: refused rather than silently dropped. */
const REFUSED = ['audio', 'modalities', 'functions', 'function_call'] as const;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** A `/v1/chat/completions` body read into a ChatRequest, with the stream and storage settings. */
export interface ChatCompletionsCall {
  request: ChatRequest;
  stream: boolean;
  includeUsage: boolean;
  /** `store: true`: keep the completion (`GET /v1/chat/completions/{id}`). */
  store: boolean;
  metadata: Record<string, string>;
}

/**
 * A well-formed body with its `null`s dropped. The route's JSON Schema has checked `model`, that each
 * message is an object with a `role`, that `tools[]` are objects with `type` and `function`, and the
 * types and ranges of the numbers; `readChatCompletionsBody` checks roles, `tool_call_id`, `n`, `store`
 * and `metadata`. What Fathom forwards without reading (`tool_choice`, `stop`, `response_format`, the
 * tools' functions, the messages' `content` and `tool_calls`) is checked by the upstream that gets it.
 */
type ChatCompletionsBody = Omit<ChatRequest, 'messages' | 'extra'> & {
  messages?: Array<Omit<ChatMessage, 'content'> & { content?: ChatMessage['content'] }>;
  n?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
  store?: unknown;
  metadata?: unknown;
  [key: string]: unknown;
};

/**
 * Validates the wire body (naming each bad field) and maps it to the ChatAdapter's request. `null`
 * means absent everywhere OpenAI allows it. Fields Fathom does not know (vLLM's `top_k`, `min_p`,
 * `chat_template_kwargs`, Ollama `options`, newer OpenAI parameters…) are passed through unchanged to
 * OpenAI-compatible upstreams; a provider that cannot honour one answers 400 naming it.
 */
export function readChatCompletionsBody(raw: Record<string, unknown>): ChatCompletionsCall {
  const body = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null)) as ChatCompletionsBody;
  if (body.n !== undefined && body.n !== 1)
    throw new InvalidRequestError(`Invalid 'n': Fathom answers one choice per request (n = 1).`, 'n');
  for (const key of REFUSED) {
    const value = body[key];
    if (value !== undefined && value !== false && value !== 0 && !(Array.isArray(value) && value.every((entry) => entry === 'text'))) {
      throw new InvalidRequestError(
        `Unsupported parameter: '${key}' is not supported by Fathom's gateway${key.startsWith('function') ? "; use 'tools' and 'tool_choice'" : ''}.`,
        key,
      );
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new InvalidRequestError(`Invalid 'messages': expected a non-empty array.`, 'messages');
  body.messages.forEach((message, index) => {
    if (!message || typeof message !== 'object' || !ROLES.has(message.role)) {
      throw new InvalidRequestError(
        `Invalid 'messages[${index}].role': expected one of system, developer, user, assistant, tool.`,
        `messages[${index}].role`,
      );
    }
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') {
      throw new InvalidRequestError(`Missing required parameter: 'messages[${index}].tool_call_id'.`, `messages[${index}].tool_call_id`);
    }
  });
  if (body.logprobs !== undefined && typeof body.logprobs !== 'boolean')
    throw new InvalidRequestError(`Invalid type for 'logprobs': expected a boolean.`, 'logprobs');
  if (body.top_logprobs !== undefined) {
    if (!Number.isInteger(body.top_logprobs) || body.top_logprobs < 0 || body.top_logprobs > 20)
      throw new InvalidRequestError(`Invalid 'top_logprobs': expected an integer from 0 to 20.`, 'top_logprobs');
    if (body.top_logprobs > 0 && body.logprobs !== true)
      throw new InvalidRequestError(`Invalid 'top_logprobs': it needs 'logprobs' set to true.`, 'top_logprobs');
  }
  if (body.store !== undefined && typeof body.store !== 'boolean')
    throw new InvalidRequestError(`Invalid type for 'store': expected a boolean.`, 'store');
  const metadata = validateMetadata(body.metadata) ?? {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (!KNOWN.has(key) && !(REFUSED as readonly string[]).includes(key)) extra[key] = value;
  const request: ChatRequest = {
    model: body.model,
    messages: body.messages.map(
      (message): ChatMessage => ({
        role: message.role,
        content: message.content ?? null,
        ...(message.name ? { name: message.name } : {}),
        ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
        ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
      }),
    ),
    tools: body.tools,
    tool_choice: body.tool_choice,
    temperature: body.temperature,
    top_p: body.top_p,
    max_tokens: body.max_tokens,
    max_completion_tokens: body.max_completion_tokens,
    stop: body.stop,
    response_format: body.response_format,
    seed: body.seed,
    user: body.user,
    logprobs: body.logprobs,
    top_logprobs: body.top_logprobs,
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return {
    request,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    store: body.store === true,
    metadata,
  };
}

/** A ChatResult as the `chat.completion` object. */
export function toChatCompletion(result: ChatResult, created = nowSeconds()) {
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

  first() {
    return { ...this.base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] };
  }

  of(part: ChatStreamPart) {
    if (part.type === 'text-delta')
      return { ...this.base, choices: [{ index: 0, delta: { content: part.text }, logprobs: part.logprobs ?? null, finish_reason: null }] };
    if (part.type === 'tool-call-delta') {
      const call = {
        index: part.index,
        ...(part.id ? { id: part.id, type: 'function' } : {}),
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
  usageChunk() {
    return { ...this.base, choices: [], usage: this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
  }
}
