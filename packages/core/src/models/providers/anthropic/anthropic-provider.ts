import { UpstreamError } from '../../../errors';
import { decodeSse } from '../../sse-decoder';
import type { ChatRequest, ChatStreamPart, ChatToolCall, FinishReason } from '../../types';
import { toUpstreamError, UpstreamClient } from '../../upstream-client';
import type { ChatProvider, ProviderChatResult } from '../chat-provider';
import { finishReasonOf, toAnthropicBody, usageOf, type AnthropicUsage } from './anthropic-request';

// The parts of the Messages API's answers Fathom reads, as Anthropic documents them.
/** A content block: text and tool calls are read, other types (thinking…) are skipped. */
type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input?: unknown }
  | { type: 'thinking' | 'redacted_thinking' | 'server_tool_use' | 'web_search_tool_result' };
interface AnthropicMessage {
  content?: AnthropicContentBlock[];
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}
/** One event of a streamed answer; which fields are present depends on `type`. */
interface AnthropicStreamEvent {
  type: string;
  /** The content block an event is about (`content_block_*` events). */
  index: number;
  message?: { usage?: AnthropicUsage };
  content_block?: { type: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}
interface AnthropicModelList {
  data?: Array<{ id?: unknown }>;
}

export interface AnthropicProviderOptions {
  vendor: string;
  /** e.g. `https://api.anthropic.com/v1` (`ANTHROPIC_BASE_URL`). */
  baseUrl: string;
  /** Sent as `x-api-key` (`ANTHROPIC_API_KEY`). */
  apiKey?: string;
  /** Headers timeout and longest silence in a body, ms; default 120000. */
  timeoutMs?: number;
  /** Most connections to the upstream; default unlimited. */
  connections?: number;
}

/** Anthropic's Messages API behind the chat contract, translated both ways. */
export class AnthropicProvider implements ChatProvider {
  readonly vendor: string;
  readonly type = 'anthropic' as const;
  private readonly client: UpstreamClient;

  constructor(options: AnthropicProviderOptions) {
    this.vendor = options.vendor;
    this.client = new UpstreamClient({
      name: options.vendor,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      connections: options.connections,
      headers: { 'anthropic-version': '2023-06-01', ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}) },
    });
  }

  async complete(model: string, request: ChatRequest, signal?: AbortSignal): Promise<ProviderChatResult> {
    const body = await this.client.json<AnthropicMessage | null>('POST', '/messages', toAnthropicBody(model, request, false), signal);
    let text = '';
    const toolCalls: ChatToolCall[] = [];
    for (const block of body?.content ?? []) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') {
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      }
    }
    return {
      message: {
        role: 'assistant',
        content: text || (toolCalls.length ? null : ''),
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      },
      finishReason: finishReasonOf(body?.stop_reason),
      usage: usageOf(body?.usage),
    };
  }

  async *stream(model: string, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamPart> {
    const response = await this.client.request('POST', '/messages', toAnthropicBody(model, request, true), signal);
    // Content-block index -> tool-call index (tool calls are numbered 0.. in order of appearance).
    const toolIndex = new Map<number, number>();
    let usage: { input: AnthropicUsage; output: number } = { input: {}, output: 0 };
    let reason: FinishReason = 'stop';
    let finished = false;
    try {
      // The finish part leaves at message_stop; the body is still read to its end afterwards, because
      // leaving early would destroy the kept-alive connection.
      for await (const event of decodeSse(response.body)) {
        if (finished) continue;
        const data = JSON.parse(event.data) as AnthropicStreamEvent;
        switch (data.type) {
          case 'message_start':
            usage = { input: data.message?.usage ?? {}, output: Number(data.message?.usage?.output_tokens) || 0 };
            break;
          case 'content_block_start':
            if (data.content_block?.type === 'tool_use') {
              const index = toolIndex.size;
              toolIndex.set(data.index, index);
              yield { type: 'tool-call-delta', index, id: data.content_block.id, name: data.content_block.name, argumentsDelta: '' };
            } else if (data.content_block?.type === 'text' && data.content_block.text) {
              yield { type: 'text-delta', text: data.content_block.text };
            }
            break;
          case 'content_block_delta':
            if (data.delta?.type === 'text_delta' && data.delta.text) yield { type: 'text-delta', text: data.delta.text };
            else if (data.delta?.type === 'input_json_delta' && toolIndex.has(data.index) && data.delta.partial_json) {
              yield { type: 'tool-call-delta', index: toolIndex.get(data.index)!, argumentsDelta: data.delta.partial_json };
            }
            break;
          case 'message_delta':
            if (data.delta?.stop_reason) reason = finishReasonOf(data.delta.stop_reason);
            if (data.usage?.output_tokens !== undefined) usage.output = Number(data.usage.output_tokens) || 0;
            if (data.usage?.input_tokens !== undefined) usage.input = { ...usage.input, ...data.usage };
            break;
          case 'error':
            throw new UpstreamError(`Provider '${this.vendor}' failed mid-stream: ${data.error?.message ?? 'unknown error'}`, {
              status: data.error?.type === 'rate_limit_error' ? 429 : 502,
              responseBody: event.data,
            });
          default:
            break;
        }
        if (data.type === 'message_stop') {
          finished = true;
          yield { type: 'finish', finishReason: reason, usage: usageOf({ ...usage.input, output_tokens: usage.output }) };
        }
      }
    } catch (error) {
      throw error instanceof SyntaxError
        ? new UpstreamError(`Provider '${this.vendor}' sent malformed stream data.`, { status: 502 })
        : toUpstreamError(error, this.vendor, '/messages');
    }
    if (!finished) yield { type: 'finish', finishReason: reason, usage: usageOf({ ...usage.input, output_tokens: usage.output }) };
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const body = await this.client.json<AnthropicModelList | null>('GET', '/models?limit=1000', undefined, signal);
    return Array.isArray(body?.data) ? body.data.map((entry) => String(entry.id)) : [];
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
