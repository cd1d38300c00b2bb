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
  const calls = new Map<number, { id?: string; name: string; arguments: string }>();
  for await (const part of chat.stream(request, { signal, accountId, api: 'agents' })) {
    if (part.type === 'text-delta' && part.text) {
      content += part.text;
      yield { type: 'message.delta', node_id: nodeId, content: part.text };
    } else if (part.type === 'tool-call-delta') {
      const call = calls.get(part.index) ?? { name: '', arguments: '' };
      if (part.id) call.id = part.id;
      if (part.name && !call.name) call.name = part.name;
      if (part.argumentsDelta) call.arguments += part.argumentsDelta;
      calls.set(part.index, call);
    }
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([index, call]): ChatToolCall => ({
        id: call.id ?? `call_${nodeId}_${index}`,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }),
    );
  return { content, toolCalls };
}

/** The assistant message that goes back into the conversation after a turn with tool calls. */
export function assistantMessage(turn: AssistantTurn): ChatMessage {
  return { role: 'assistant', content: turn.content || null, ...(turn.toolCalls.length ? { tool_calls: turn.toolCalls } : {}) };
}
