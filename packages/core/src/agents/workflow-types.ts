import type { WebhookCard } from '../webhooks';

/**
 * The workflow format of the agent service: a graph of nodes joined by edges.
 * `start -> agent(s) -> end` is the flow; Webhook cards sit beside it, wired to an agent's `slot-N`.
 */

/** A run variable declared on the start node, referenced as `{{name}}` in prompts and the message. */
export interface StartVariable {
  name: string;
  /** Only `input` is defined by the spec. */
  type?: string;
  required?: boolean;
  description?: string;
}

export interface StartNode {
  id: string;
  type: 'start';
  data: { label?: string; variables?: StartVariable[] };
}

export interface AgentNode {
  id: string;
  type: 'agent';
  data: {
    name: string;
    /** `<vendor>/<model_name>`, routed by the ChatAdapter. */
    model: string;
    system_prompt?: string;
    config?: {
      /** Tool names this agent may call; absent or empty means every tool it sees. */
      tools_filter?: string[];
    };
  };
}

export interface WebhookNode {
  id: string;
  type: 'webhook';
  /** The card itself (see the WebhookToolkit's `WebhookCard`). */
  data: WebhookCard;
}

export interface EndNode {
  id: string;
  type: 'end';
  data: { label?: string; status?: string };
}

export type WorkflowNode = StartNode | AgentNode | WebhookNode | EndNode;
export type WorkflowNodeType = WorkflowNode['type'];

export interface WorkflowEdge {
  id: string;
  source: string;
  target: string;
  /** `slot-N` when a Webhook card is wired to an agent; absent on flow edges. */
  targetHandle?: string | null;
  sourceHandle?: string | null;
}

export interface Workflow {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}
