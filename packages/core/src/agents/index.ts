// The agent service: `fathom.agents` (with `.versions`, `.runs`, `.tools`), its wire format, and the workflow rules.
export type { Agents } from './agents';
export type { AgentVersions } from './agent-versions';
export type { AgentRuns, StartedAgentRun } from './agent-runs';
export type { WorkflowTools } from './preview-tools';
export { INTERRUPTED_RUN_ERROR } from './agent-runs';
export { agentsSchema } from './agents-schema';
export type { AgentsOptions, AgentWebhooks } from './agent-deps';
export type { AgentRunEvent } from './agent-objects';
// A workflow read from elsewhere (a file, another system) checked as a save checks it: its declaration, then its rules.
export { checkWorkflow, type WorkflowErrorCode } from './validate-workflow';
export {
  Agent,
  AgentCreateParams,
  AgentDeleted,
  AgentEnvelope,
  AgentListParams,
  AgentsPage,
  AgentUpdateParams,
  AgentVersion,
  AgentVersionEnvelope,
  AgentVersionListParams,
  AgentVersionPath,
  AgentVersionsPage,
  AgentVersionWithWorkflow,
} from './wire/agents';
export {
  AgentRun,
  AgentRunCreateParams,
  AgentRunEnvelope,
  AgentRunListParams,
  AgentRunsPage,
  AgentRunStatus,
  AgentRunStep,
  AgentRunStreamEvent,
  AgentRunSummary,
} from './wire/runs';
export { AgentToolDefinition, AgentToolsPreview, AgentToolsPreviewParams, WorkflowToolsPreview } from './wire/tools-preview';
export {
  AgentNode,
  EndNode,
  StartNode,
  StartVariable,
  WebhookNode,
  Workflow,
  WorkflowDraft,
  WorkflowEdge,
  WorkflowNode,
  type WorkflowNodeType,
} from './wire/workflow';
export type { PublishedAgentTools } from './published-tools';
export type { AgentTool } from './agent-tools';
export { visibleCards } from './workflow-graph';
export { WORKFLOW_LIMITS } from './workflow-limits';
export { SECRET_MASK, maskWorkflowSecrets } from './workflow-secrets';
