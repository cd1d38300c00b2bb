import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { ChatMessage, ChatRequest, ChatResult, ChatStreamPart, ChatUsage } from './types';

/** OpenAI parameters passed through to OpenAI-compatible upstreams beyond the typed ones. */
const PASSTHROUGH = [
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'parallel_tool_calls',
  'reasoning_effort',
  'metadata',
  'service_tier',
  'prediction',
  'verbosity',
] as const;
/** Parameters whose results Fathom's answer cannot carry: refused rather than silently dropped. */
const REFUSED = ['logprobs', 'top_logprobs', 'audio', 'modalities', 'functions', 'function_call'] as const;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** A `/v1/chat/completions` body read into a ChatRequest, with the stream settings. */
export interface ChatCompletionsCall {
  request: ChatRequest;
  stream: boolean;
  includeUsage: boolean;
}

/** Validates the wire body (naming each bad field) and maps it to the ChatAdapter's request. */
export function readChatCompletionsBody(body: Record<string, any>): ChatCompletionsCall {
  if (body.n !== undefined && body.n !== 1)
    throw new InvalidRequestError(`Invalid 'n': Fathom answers one choice per request (n = 1).`, 'n');
  for (const key of REFUSED) {
    const value = body[key];
    if (
      value !== undefined &&
      value !== null &&
      value !== false &&
      value !== 0 &&
      !(Array.isArray(value) && value.every((entry) => entry === 'text'))
    ) {
      throw new InvalidRequestError(
        `Unsupported parameter: '${key}' is not supported by Fathom's gateway${key.startsWith('function') ? "; use 'tools' and 'tool_choice'" : ''}.`,
        key,
      );
    }
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new InvalidRequestError(`Invalid 'messages': expected a non-empty array.`, 'messages');
  body.messages.forEach((message: any, index: number) => {
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
  const extra: Record<string, unknown> = {};
  for (const key of PASSTHROUGH) if (body[key] !== undefined) extra[key] = body[key];
  const request: ChatRequest = {
    model: body.model,
    messages: body.messages.map(
      (message: any): ChatMessage => ({
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
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return { request, stream: body.stream === true, includeUsage: body.stream_options?.include_usage === true };
}

/** A ChatResult as the `chat.completion` object. */
export function toChatCompletion(result: ChatResult, created = nowSeconds()) {
  return {
    id: result.id,
    object: 'chat.completion' as const,
    created,
    model: result.model,
    choices: [{ index: 0, message: { ...result.message, refusal: null }, logprobs: null, finish_reason: result.finishReason }],
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

  first() {
    return { ...this.base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] };
  }

  of(part: ChatStreamPart) {
    if (part.type === 'text-delta')
      return { ...this.base, choices: [{ index: 0, delta: { content: part.text }, logprobs: null, finish_reason: null }] };
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
    if (part.type !== 'text-delta') return JSON.stringify(this.of(part));
    return `${this.deltaPrefix}{"content":${JSON.stringify(part.text)}},"logprobs":null,"finish_reason":null}]}`;
  }

  /** The `stream_options.include_usage` chunk: empty choices and the usage. */
  usageChunk() {
    return { ...this.base, choices: [], usage: this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 } };
  }
}
