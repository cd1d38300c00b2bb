import { ToolCallAssembler } from '../models/tool-call-assembler';
import type { ChatAdapterContract, ChatMessage, ChatRequest, ChatToolCall } from '../models/types';
import type { AgentRunEvent } from './agent-objects';

export interface ModelTurnOptions {
  chat: ChatAdapterContract;
  request: ChatRequest;
  /** Stream the answer (`chat.stream`), yielding `message.delta` parts as text arrives. */
  stream: boolean;
  nodeId: string;
  signal: AbortSignal;
  accountId: string;
}

export interface AssistantTurn {
  content: string;
  toolCalls: ChatToolCall[];
}

/**
 * One model call of an agent node. Streaming yields `message.delta` parts and assembles tool calls
 * from their deltas; otherwise `chat.complete` answers at once. Returns the assistant's turn.
 */
export async function* modelTurn(options: ModelTurnOptions): AsyncGenerator<AgentRunEvent, AssistantTurn> {
  const { chat, request, signal, accountId, nodeId } = options;
  if (!options.stream) {
    const result = await chat.complete(request, { signal, accountId, api: 'agents' });
    return { content: result.message.content ?? '', toolCalls: result.message.tool_calls ?? [] };
  }
  let content = '';
  const calls = new ToolCallAssembler();
  for await (const part of chat.stream(request, { signal, accountId, api: 'agents' })) {
    if (part.type === 'text-delta' && part.text) {
      content += part.text;
      yield { type: 'message.delta', node_id: nodeId, content: part.text };
    } else {
      calls.add(part);
    }
  }
  return { content, toolCalls: calls.calls() };
}

/** The assistant message that goes back into the conversation after a turn with tool calls. */
export function assistantMessage(turn: AssistantTurn): ChatMessage {
  return { role: 'assistant', content: turn.content || null, ...(turn.toolCalls.length ? { tool_calls: turn.toolCalls } : {}) };
}
