// The workflow format's types come from its one declaration (wire/workflow.ts).
export type {
  AgentNode,
  EndNode,
  StartNode,
  StartVariable,
  WebhookNode,
  Workflow,
  WorkflowDraft,
  WorkflowEdge,
  WorkflowNode,
  WorkflowNodeType,
} from './wire/workflow';
