export { Agents, INTERRUPTED_RUN_ERROR, type RunAgentInput, type StartedRun } from './agents';
export type { AgentRunSummary } from './agents-repository';
export { agentsSchema } from './agents-schema';
export type { AgentsOptions, AgentWebhooks } from './agent-deps';
export type { AgentObject, AgentRunEvent, AgentRunObject, AgentRunStatus, AgentRunStep, AgentVersionObject } from './agent-objects';
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
export type { AgentToolsPreview, WorkflowToolsPreview } from './preview-tools';
export type { PublishedAgentTools } from './published-tools';
export type { AgentTool } from './agent-tools';
export { visibleCards } from './workflow-graph';
export { WORKFLOW_LIMITS } from './workflow-limits';
export { SECRET_MASK, maskWorkflowSecrets } from './workflow-secrets';
