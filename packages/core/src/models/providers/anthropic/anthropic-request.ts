import { InvalidRequestError } from '../../../errors';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolChoice, FinishReason } from '../../types';

/** Pass-through fields the Messages API mapping honours; any other answers 400 naming it. */
const ANTHROPIC_HONOURED_EXTRA = new Set(['parallel_tool_calls']);

/** `max_tokens` is required by the Messages API; used when the request sets neither limit. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

function textOf(content: ChatMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? String((part as { text: string }).text) : '')).join('');
}

function imageBlock(part: ChatContentPart): Block {
  const url = String((part as { image_url: { url: string } }).image_url?.url ?? '');
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match
    ? { type: 'image', source: { type: 'base64', media_type: match[1], data: match[2] } }
    : { type: 'image', source: { type: 'url', url } };
}

function contentBlocks(content: ChatMessage['content']): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: Block[] = [];
  for (const part of content) {
    if (part.type === 'text' && (part as { text: string }).text) blocks.push({ type: 'text', text: (part as { text: string }).text });
    else if (part.type === 'image_url') blocks.push(imageBlock(part));
  }
  return blocks;
}

function parseArguments(value: string): unknown {
  if (!value) return {};
  try {
    const parsed = JSON.parse(value);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { value: parsed };
  } catch {
    return { arguments: value };
  }
}

function toolChoice(choice: ChatToolChoice | undefined): Block | undefined {
  if (choice === undefined) return undefined;
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.function.name };
}

/**
 * Chat request -> Messages API body: system/developer messages become `system`, tool calls become
 * `tool_use` blocks, tool messages `tool_result` blocks in a user turn, consecutive turns of one role merge.
 */
export function toAnthropicBody(model: string, request: ChatRequest, stream: boolean): Record<string, unknown> {
  // The Messages API has no token log probabilities: asking for them is refused rather than answered without.
  for (const key of ['logprobs', 'top_logprobs'] as const) {
    if (request[key]) {
      throw new InvalidRequestError(`Unsupported parameter: '${key}': Anthropic models do not return token log probabilities.`, key);
    }
  }
  for (const key of Object.keys(request.extra ?? {})) {
    if (!ANTHROPIC_HONOURED_EXTRA.has(key)) {
      throw new InvalidRequestError(
        `Unsupported parameter: '${key}' cannot be passed to an Anthropic model (it is passed through only to OpenAI-compatible upstreams).`,
        key,
      );
    }
  }
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (!blocks.length) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(textOf(message.content));
    else if (message.role === 'user') push('user', contentBlocks(message.content));
    else if (message.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOf(message.content) }]);
    } else {
      const blocks = contentBlocks(message.content);
      for (const call of message.tool_calls ?? []) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
      }
      push('assistant', blocks);
    }
  }
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system.some(Boolean)) body.system = system.filter(Boolean).join('\n\n');
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.top_p !== undefined) body.top_p = request.top_p;
  if (request.stop !== undefined) body.stop_sequences = Array.isArray(request.stop) ? request.stop : [request.stop];
  if (request.user) body.metadata = { user_id: request.user };
  // Tools stay declared with tool_choice none: the Messages API refuses tool_use/tool_result blocks without them.
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
    }));
    const choice = toolChoice(request.tool_choice);
    if (request.extra?.parallel_tool_calls === false && choice?.type !== 'none')
      body.tool_choice = { ...(choice ?? { type: 'auto' }), disable_parallel_tool_use: true };
    else if (choice) body.tool_choice = choice;
  }
  if (stream) body.stream = true;
  return body;
}

/** Messages API `stop_reason` -> chat `finish_reason`. */
export function finishReasonOf(stopReason: unknown): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** Token counts of a Messages API answer, as Anthropic documents them (read defensively: each may be missing). */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** Messages API usage -> chat usage (cache reads and writes count as prompt tokens). */
export function usageOf(usage: AnthropicUsage | null | undefined): {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
} {
  const prompt =
    (Number(usage?.input_tokens) || 0) + (Number(usage?.cache_creation_input_tokens) || 0) + (Number(usage?.cache_read_input_tokens) || 0);
  const completion = Number(usage?.output_tokens) || 0;
  const cached = Number(usage?.cache_read_input_tokens) || 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  };
}
