/**
 * The ChatAdapter contract: one way for every part of Fathom (assistant runs, agents, data tools,
 * the /v1/chat/completions gateway) to call a model. Message and tool shapes follow the OpenAI
 * chat wire format so the gateway needs no translation for OpenAI-compatible upstreams.
 */
export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: string; [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export interface ChatToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  /** `<vendor>/<model_name>`. */
  model: string;
  messages: ChatMessage[];
  tools?: ChatToolDefinition[];
  tool_choice?: ChatToolChoice;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** The newer name of `max_tokens` (OpenAI reasoning models accept only this one); sent as given. */
  max_completion_tokens?: number;
  stop?: string | string[];
  response_format?: Record<string, unknown>;
  seed?: number;
  user?: string;
  /** Return the log probability of each output token (OpenAI-compatible upstreams; Anthropic refuses it). */
  logprobs?: boolean;
  /** With `logprobs`: how many most likely alternatives to list at each position, 0..20. */
  top_logprobs?: number;
  /** Further OpenAI parameters passed through to OpenAI-compatible upstreams as they are. */
  extra?: Record<string, unknown>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Of the prompt tokens, those the upstream read from its prompt cache, when it reported any. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** The log probability of one output token, with its most likely alternatives, as OpenAI's wire has it. */
export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] | null }>;
}

/** `choices[].logprobs` of a completion (or of one chunk): the tokens of the content and of a refusal. */
export interface ChatLogprobs {
  content: ChatTokenLogprob[] | null;
  refusal: ChatTokenLogprob[] | null;
}

export interface ChatResult {
  id: string;
  /** The full `<vendor>/<model>` id. */
  model: string;
  message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] };
  finishReason: FinishReason;
  usage: ChatUsage;
  /** The tokens' log probabilities when the request asked for `logprobs`, else null or absent. */
  logprobs?: ChatLogprobs | null;
}

/** Typed parts a streaming call yields; only the HTTP edge encodes them as SSE. */
export type ChatStreamPart =
  /** A piece of the answer's text, with its tokens' log probabilities when the request asked for them. */
  | { type: 'text-delta'; text: string; logprobs?: ChatLogprobs }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta?: string }
  | { type: 'finish'; finishReason: FinishReason; usage?: ChatUsage };

export interface ChatCallOptions {
  signal?: AbortSignal;
  /** Account the call is attributed to: usage is recorded for it, and a priced model's cost charged to it. */
  accountId?: string;
  /** The API family the call serves (`responses`, `assistants`, `agents`…), when the request's own is not known. */
  api?: string;
  /** The caller charges the call in its own price (a data tool's job counts its tokens): not charged again. */
  chargedByCaller?: boolean;
}

/** What a metered model call is about to send: the model and the most its input and output can count. */
export interface MeteredCallStart {
  accountId: string;
  /** The full `<vendor>/<model>` id. */
  modelId: string;
  /** Upper bound of the input tokens (the hold), and the usual estimate (charged when the upstream never reports). */
  inputTokensAtMost: number;
  inputTokensEstimate: number;
  /** The output tokens the request allows (`max_tokens`…), if it says; the meter knows the model's own limit. */
  maxOutputTokens?: number;
  /** False for embeddings: no output tokens. */
  hasOutput: boolean;
  api?: string;
  /** A streamed call (its hold is made durable at once on SQLite; see spend/booked-holds.ts). */
  stream?: boolean;
}

/** What a call used: the upstream's usage, or (when it never came) what was seen streaming. */
export interface MeteredCallEnd {
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  /** Whether the upstream answered at all (false: nothing was used, nothing is charged). */
  answered: boolean;
  /** Bytes of output seen (text and tool-call arguments), to estimate output tokens without usage. */
  outputBytes?: number;
}

/** A model call between its hold and its capture. `finish` never throws (an unsettled hold is swept). */
export interface MeteredCall {
  finish(end: MeteredCallEnd): Promise<void>;
}

/**
 * Charges model calls (internal to the composition root): the one seam every model call passes. `start`
 * checks the key's model allow-list and holds the most the call can cost, before the upstream is called:
 * it throws 403 `permission_denied` or 429 `insufficient_quota`; `finish` captures the cost and releases
 * the rest.
 */
export interface ModelCallMeter {
  start(call: MeteredCallStart): Promise<MeteredCall>;
}

/** What an embedder or a provider's `/embeddings` answered. */
export interface EmbeddingsResult {
  /** The model id as the caller should see it. */
  model: string;
  embeddings: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

export interface ChatAdapterContract {
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResult>;
  stream(request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatStreamPart>;
  /** Configured vendors; when offered, callers check `<vendor>/<model>` ids up front (400 naming the field). */
  vendors?(): string[];
  /** The `<vendor>/<model>` id a model id stands for (model aliases, default vendor); others come back unchanged. */
  resolveModel?(model: string): string;
}
