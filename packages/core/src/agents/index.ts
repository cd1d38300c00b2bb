export { Agents, type RunAgentInput, type StartedRun } from './agents';
export { agentsSchema } from './agents-schema';
export type { AgentsOptions, AgentWebhooks } from './agent-deps';
export type { AgentObject, AgentRunEvent, AgentRunObject, AgentRunStatus, AgentRunStep } from './agent-objects';
export { validateWorkflow, type WorkflowErrorCode } from './validate-workflow';
export type {
  AgentNode,
  EndNode,
  StartNode,
  StartVariable,
  WebhookNode,
  Workflow,
  WorkflowEdge,
  WorkflowNode,
  WorkflowNodeType,
} from './workflow-types';
export type { AgentVersionObject } from './agent-versions';
export type { AgentToolsPreview, WorkflowToolsPreview } from './preview-tools';
export { visibleCards } from './visible-cards';
export { SECRET_MASK, maskWorkflowSecrets } from './workflow-secrets';
