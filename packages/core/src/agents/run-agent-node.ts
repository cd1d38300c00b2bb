import { boundToolResult } from '../internal/tool-result';
import type { ChatAdapterContract, ChatMessage, ChatToolCall } from '../models/types';
import type { AgentRunEvent, NewAgentRunStep } from './agent-objects';
import type { AgentTool } from './agent-tools';
import { assistantMessage, modelTurn } from './model-turn';

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
  /** Stores a step as soon as it is known. */
  record(step: NewAgentRunStep): void;
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

/** Runs one tool call; its result (or error text) is at most MAX_TOOL_RESULT_CHARS characters. */
async function runTool(
  call: ChatToolCall,
  tools: Map<string, AgentTool>,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<string> {
  const tool = tools.get(call.function.name);
  if (!tool) return `Error: Tool '${call.function.name}' is not available. Available tools: ${[...tools.keys()].join(', ') || 'none'}`;
  try {
    // Whatever the tool, what enters the model's context and the stored run is bounded.
    return boundToolResult(await tool.run(args, signal));
  } catch (error) {
    if (signal.aborted) throw error;
    return boundToolResult(`Error: ${(error as Error).message}`);
  }
}

/**
 * One agent node: the model answers the input with its system prompt and tools; each tool call runs
 * and its result (error text included) goes back as a tool message, until the model answers without
 * tools or the round cap is reached. Returns the node's final text.
 */
export async function* runAgentNode(options: RunAgentNodeOptions): AsyncGenerator<AgentRunEvent, string> {
  const { nodeId, tools, signal } = options;
  const messages: ChatMessage[] = [];
  if (options.systemPrompt) messages.push({ role: 'system', content: options.systemPrompt });
  messages.push({ role: 'user', content: options.input });
  const definitions = [...tools.values()].map((tool) => tool.definition);
  for (let round = 0; ; round++) {
    const turn = yield* modelTurn({
      chat: options.chat,
      request: { model: options.model, messages, ...(definitions.length ? { tools: definitions } : {}) },
      stream: options.stream,
      nodeId,
      signal,
      accountId: options.accountId,
    });
    if (turn.toolCalls.length === 0) {
      if (!options.stream && turn.content) yield { type: 'message.delta', node_id: nodeId, content: turn.content };
      options.record({ type: 'message', node_id: nodeId, content: turn.content });
      return turn.content;
    }
    if (round >= options.maxToolRounds) {
      throw new ToolRoundsExceededError(
        `Agent node '${nodeId}' was still calling tools after ${options.maxToolRounds} tool-calling rounds; the run was stopped.`,
      );
    }
    messages.push(assistantMessage(turn));
    for (const call of turn.toolCalls) {
      const parsed = parseArguments(call);
      const input = parsed.args ?? call.function.arguments;
      yield { type: 'tool_use', node_id: nodeId, id: call.id, tool: call.function.name, input };
      const output = parsed.args ? await runTool(call, tools, parsed.args, signal) : parsed.error!;
      yield { type: 'tool_result', node_id: nodeId, id: call.id, tool: call.function.name, output };
      options.record({ type: 'tool_call', node_id: nodeId, call_id: call.id, tool: call.function.name, input, output });
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
}
