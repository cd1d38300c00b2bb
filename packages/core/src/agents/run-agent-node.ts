import { boundToolResult } from '../internal/tool-result';
import type { ChatAdapterContract, ChatMessage, ChatToolCall } from '../models/types';
import { completionAsParts, type PlannedCall, runToolLoop } from '../turns';
import type { AgentRunEvent, NewAgentRunStep } from './agent-objects';
import type { AgentTool } from './agent-tools';

export interface RunAgentNodeOptions {
  chat: ChatAdapterContract;
  nodeId: string;
  model: string;
  systemPrompt: string;
  /** The user message (first agent) or the previous agents' output (later agents). */
  input: string;
  tools: Map<string, AgentTool>;
  stream: boolean;
  maxToolRounds: number;
  signal: AbortSignal;
  accountId: string;
  /** Stores a step as soon as it is known; a rejection stops the node. */
  record(step: NewAgentRunStep): Promise<void> | void;
}

/** Raised when an agent node keeps calling tools past the cap; the run fails with this message. */
export class ToolRoundsExceededError extends Error {}

function parseArguments(call: ChatToolCall): { args?: Record<string, unknown>; error?: string } {
  const text = call.function.arguments?.trim() || '{}';
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
    return { error: 'Error: tool arguments must be a JSON object' };
  } catch (error) {
    return { error: `Error: tool arguments are not valid JSON - ${(error as Error).message}` };
  }
}

/**
 * One agent node on the one tool loop (`turns/`): the model answers the input with its system prompt and
 * tools; each tool call runs and its result (error text included) goes back as a tool message, until the
 * model answers without tools or the round cap is reached. Returns the node's final text.
 */
export async function* runAgentNode(options: RunAgentNodeOptions): AsyncGenerator<AgentRunEvent, string> {
  const { nodeId, tools, signal, chat, accountId } = options;
  const messages: ChatMessage[] = [];
  if (options.systemPrompt) messages.push({ role: 'system', content: options.systemPrompt });
  messages.push({ role: 'user', content: options.input });
  const definitions = [...tools.values()].map((tool) => tool.definition);
  const loop = runToolLoop<never>({
    messages,
    request: () => ({ model: options.model, messages, ...(definitions.length ? { tools: definitions } : {}) }),
    model: (request) =>
      options.stream
        ? chat.stream(request, { signal, accountId, api: 'agents' })
        : completionAsParts(chat.complete(request, { signal, accountId, api: 'agents' })),
    tools: (step) =>
      step.toolCalls.map((call): PlannedCall<never> => {
        const parsed = parseArguments(call);
        if (!parsed.args) return { call, action: { type: 'answer', output: parsed.error! } };
        const tool = tools.get(call.function.name);
        if (!tool) {
          const available = [...tools.keys()].join(', ') || 'none';
          return {
            call,
            action: { type: 'answer', output: `Error: Tool '${call.function.name}' is not available. Available tools: ${available}` },
          };
        }
        // Whatever the tool, what enters the model's context and the stored run is bounded.
        return {
          call,
          action: { type: 'run', run: async (toolSignal) => boundToolResult(await tool.run(parsed.args!, toolSignal ?? signal)) },
        };
      }),
    toolError: (error) => boundToolResult(`Error: ${(error as Error).message}`),
    maxToolRounds: options.maxToolRounds,
    signal,
  });
  for (let next = await loop.next(); ; next = await loop.next()) {
    if (next.done) {
      const { reason, last } = next.value;
      if (reason === 'max-tool-rounds') {
        throw new ToolRoundsExceededError(
          `Agent node '${nodeId}' was still calling tools after ${options.maxToolRounds} tool-calling rounds; the run was stopped.`,
        );
      }
      const content = last?.text ?? '';
      if (!options.stream && content) yield { type: 'message.delta', node_id: nodeId, content };
      await options.record({ type: 'message', node_id: nodeId, content });
      return content;
    }
    const event = next.value;
    if (event.type === 'part' && options.stream && event.part.type === 'text-delta' && event.part.text) {
      yield { type: 'message.delta', node_id: nodeId, content: event.part.text };
    } else if (event.type === 'tool-call-start') {
      const { call } = event;
      yield { type: 'tool_use', node_id: nodeId, id: call.id, tool: call.function.name, input: inputOf(call) };
    } else if (event.type === 'tool-call-finish') {
      const { call, output } = event;
      yield { type: 'tool_result', node_id: nodeId, id: call.id, tool: call.function.name, output };
      await options.record({
        type: 'tool_call',
        node_id: nodeId,
        call_id: call.id,
        tool: call.function.name,
        input: inputOf(call),
        output,
      });
    }
  }
}

/** What a tool_use event and the stored step show as the call's input: its arguments as an object, or as sent. */
function inputOf(call: ChatToolCall): Record<string, unknown> | string {
  return parseArguments(call).args ?? call.function.arguments;
}
