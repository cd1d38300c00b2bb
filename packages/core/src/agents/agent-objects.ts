import type { Workflow } from './workflow-types';

/** An agent as the API shows it: the draft workflow and the number of the version that runs. */
export interface AgentObject {
  id: string;
  object: 'agent';
  account_id: string;
  name: string;
  /** `draft` until the first publish, then `published`. */
  status: 'draft' | 'published';
  /** The published version that runs; null before the first publish. */
  version: number | null;
  /** True when the draft differs from the published version (or nothing is published yet). */
  has_unpublished_changes: boolean;
  /** The draft workflow (what the next publish snapshots). */
  workflow: Workflow;
  created_at: number;
  updated_at: number;
}

/** One published snapshot of an agent, as `GET /v1/agents/{id}/versions` lists it. */
export interface AgentVersionObject {
  /** `<agent_id>@<version>`. */
  id: string;
  object: 'agent.version';
  agent_id: string;
  version: number;
  /** The agent's name when this version was published. */
  name: string;
  created_at: number;
}

export type AgentRunStatus = 'in_progress' | 'completed' | 'failed';

/** One stored step of a run: an agent node's answer, or one tool call with its result. */
export type AgentRunStep =
  | { id: string; type: 'message'; node_id: string; content: string }
  | { id: string; type: 'tool_call'; node_id: string; call_id: string; tool: string; input: unknown; output: string };

export interface AgentRunObject {
  id: string;
  object: 'agent.run';
  agent_id: string;
  version: number;
  status: AgentRunStatus;
  message: string;
  variables: Record<string, unknown>;
  output: string | null;
  error: string | null;
  steps: AgentRunStep[];
  created_at: number;
  completed_at: number | null;
}

/** Typed parts of a run; only the HTTP edge encodes them as SSE events of the same names. */
export type AgentRunEvent =
  | { type: 'run.started'; run: { id: string; agent_id: string; version: number; status: 'in_progress' } }
  | { type: 'message.delta'; node_id: string; content: string }
  | { type: 'tool_use'; node_id: string; id: string; tool: string; input: unknown }
  | { type: 'tool_result'; node_id: string; id: string; tool: string; output: string }
  | { type: 'run.completed'; run_id: string; output: string }
  | { type: 'run.failed'; run_id: string; error: string };

/** A step before it is stored (no id yet). */
export type NewAgentRunStep = AgentRunStep extends infer Step ? (Step extends AgentRunStep ? Omit<Step, 'id'> : never) : never;
