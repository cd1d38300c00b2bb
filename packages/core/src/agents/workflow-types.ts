// The workflow format's types come from its one declaration (wire/workflow.ts).
export type {
  AgentNode,
  EndNode,
  McpNode,
  StartNode,
  StartVariable,
  ToolCardNode,
  WebhookNode,
  Workflow,
  WorkflowDraft,
  WorkflowEdge,
  WorkflowNode,
  WorkflowNodeType,
} from './wire/workflow';
