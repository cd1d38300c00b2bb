import type { Agent } from './wire/agents';
import type { AgentRunStep } from './wire/runs';

/** An agent as stored: the wire object and the account that owns it (never answered). */
export type AgentRecord = Agent & { account_id: string };

/** Typed parts of a run; only the HTTP edge encodes them as SSE events of the same names (`AgentRunStreamEvent`). */
export type AgentRunEvent =
  | { type: 'run.started'; run: { id: string; agent_id: string; version: number; status: 'in_progress' } }
  | { type: 'message.delta'; node_id: string; content: string }
  | { type: 'tool_use'; node_id: string; id: string; tool: string; input: unknown }
  | { type: 'tool_result'; node_id: string; id: string; tool: string; output: string }
  | { type: 'run.completed'; run_id: string; output: string }
  | { type: 'run.failed'; run_id: string; error: string };

/** A step before it is stored (no id yet). */
export type NewAgentRunStep = AgentRunStep extends infer Step ? (Step extends AgentRunStep ? Omit<Step, 'id'> : never) : never;
