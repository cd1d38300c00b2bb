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

/** One parameter of a Webhook route, filled by the model. */
export interface WorkflowWebhookParameter {
  id?: string;
  name: string;
  type?: 'string' | 'number' | 'boolean' | 'array' | 'object';
  required?: boolean;
  description: string;
  howToObtain?: string;
  example?: string;
  defaultValue?: string;
  validValues?: string[];
  in?: string;
}

/** One route of a Webhook card; each enabled route becomes one tool. */
export interface WorkflowWebhookRoute {
  id?: string;
  name: string;
  description: string;
  whenToUse: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  parameters?: WorkflowWebhookParameter[];
  bodyTemplate?: string;
  queryParams?: Record<string, string>;
  headers?: Record<string, string>;
  responseDescription?: string;
  enabled?: boolean;
  responseMapping?: Record<string, string>;
  dependsOn?: string[];
  triggers?: string[];
  responseExample?: unknown;
}

/** The Webhook card's settings, as the spec's card table lists them. */
export interface WorkflowWebhookConfig {
  baseUrl?: string;
  description?: string;
  auth?: { type: 'none' | 'bearer' | 'api_key' | 'basic' | 'custom_header'; [field: string]: unknown };
  defaultHeaders?: Record<string, string>;
  timeout?: number;
  retryOnError?: boolean;
  maxRetries?: number;
  routes?: WorkflowWebhookRoute[];
  maxRequestsPerMinute?: number;
}

export interface WebhookNode {
  id: string;
  type: 'webhook';
  data: { name: string; config: WorkflowWebhookConfig };
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
