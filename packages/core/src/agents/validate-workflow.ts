import { describeSchemaIssues, InvalidRequestError, type SchemaIssue } from '../errors';
import { placeholderNames, sanitizeToolName } from '../webhooks';
import { compileCheck } from '../wire';
import { checkSeenTools } from './seen-tools';
import { Workflow as WorkflowSchema } from './wire/workflow';
import { isSlotEdge, SLOT_HANDLE, WorkflowGraph } from './workflow-graph';
import { checkWorkflowLimits } from './workflow-limits';
import type { WebhookNode, Workflow } from './workflow-types';

/**
 * The `code` of each failure of a rule the workflow's schema cannot say (400). The schema's own failures
 * (a missing field, a wrong type, an unknown node type, a count past `WORKFLOW_LIMITS`) carry OpenAI's
 * codes (`missing_required_parameter`, `invalid_type`, `invalid_value`, `array_above_max_length`…).
 * See docs/agents.md.
 */
export type WorkflowErrorCode =
  | 'array_above_max_length'
  | 'invalid_workflow'
  | 'duplicate_node_id'
  | 'webhook_no_config'
  | 'duplicate_route_name'
  | 'path_parameter_undeclared'
  | 'path_parameter_not_required'
  | 'missing_start_node'
  | 'multiple_start_nodes'
  | 'missing_end_node'
  | 'edge_unknown_node'
  | 'invalid_webhook_edge'
  | 'workflow_cycle'
  | 'end_unreachable'
  | 'workflow_too_large';

/** The workflow's declaration, compiled once: what a route checks a body with, for workflows that come from elsewhere. */
const checkShape = compileCheck(WorkflowSchema);

function fail(code: WorkflowErrorCode, message: string, param: string): never {
  throw new InvalidRequestError(message, param, code);
}

/** The 400 a route answers for these schema issues of a `workflow` field. */
function schemaError(issues: readonly SchemaIssue[]): InvalidRequestError {
  const prefixed = issues.map((issue) => ({ ...issue, instancePath: `/workflow${issue.instancePath}` }));
  const { message, param, code } = describeSchemaIssues(prefixed);
  return new InvalidRequestError(message, param, code);
}

/**
 * A workflow that did not come through a route's schema (read back from storage) checked against the
 * same declaration: the 400 a route would answer, naming the field.
 */
export function checkWorkflowShape(input: unknown): Workflow {
  if (checkShape(input)) return input;
  throw schemaError(checkShape.issues);
}

/** A workflow of unknown shape checked as a save checks one: its declaration, then its rules (`validateWorkflow`). */
export function checkWorkflow(input: unknown): Workflow {
  return validateWorkflow(checkWorkflowShape(input));
}

/**
 * For a draft (the tool preview): throws the 400 of any count past the limits, as a save would, and
 * answers the draft's other schema issues as a save would word them (or null when it has the shape of
 * a workflow).
 */
export function draftShapeError(input: unknown): InvalidRequestError | null {
  if (checkShape(input)) return null;
  const issues = checkShape.issues;
  const limits = issues.filter((issue) => issue.keyword === 'maxItems');
  if (limits.length > 0) throw schemaError(limits);
  return schemaError(issues);
}

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

/** The spec's one rule of a card the schema cannot say: a baseUrl or at least one route. */
function checkCard(node: WebhookNode, index: number): void {
  const { config } = node.data;
  if (isBlank(config.baseUrl) && (config.routes ?? []).length === 0) {
    fail(
      'webhook_no_config',
      `Webhook card '${node.data.name}' (node '${node.id}') has neither a baseUrl nor any routes.`,
      `workflow.nodes[${index}].data.config`,
    );
  }
}

function checkRoutes(node: WebhookNode, index: number, seenRoutes: Map<string, string>): void {
  (node.data.config.routes ?? []).forEach((route, r) => {
    const at = `workflow.nodes[${index}].data.config.routes[${r}]`;
    const toolName = sanitizeToolName(route.name);
    const previous = seenRoutes.get(toolName);
    if (previous) {
      fail(
        'duplicate_route_name',
        `Route name '${route.name}' (node '${node.id}') is already used by ${previous}; route names must be unique across the workflow.`,
        `${at}.name`,
      );
    }
    seenRoutes.set(toolName, `route '${route.name}' of node '${node.id}'`);
    const declared = new Map((route.parameters ?? []).map((parameter) => [parameter.name, parameter]));
    // The renderer's own placeholder pattern (linear: a name cannot hold a brace).
    for (const name of placeholderNames(route.path)) {
      const parameter = declared.get(name);
      if (!parameter) {
        fail(
          'path_parameter_undeclared',
          `The path '${route.path}' of route '${route.name}' (node '${node.id}') uses '{{${name}}}' but declares no parameter '${name}'.`,
          `${at}.path`,
        );
      }
      if (parameter.required === false) {
        fail(
          'path_parameter_not_required',
          `Parameter '${name}' of route '${route.name}' (node '${node.id}') is used in the path, so it must be required.`,
          `${at}.parameters`,
        );
      }
    }
  });
}

/**
 * The rules of a workflow its schema cannot say (the schema has checked its shape: at the route, or
 * `checkWorkflowShape`): the routes of all cards together (`WORKFLOW_LIMITS`), unique node ids, a card
 * with a baseUrl or routes, route names unique across the workflow, path placeholders declared and
 * required, the graph (one start, an end reachable from it, no cycles, edges between known nodes, cards
 * only in agents' slots) and the tools its agents see. Throws `InvalidRequestError` (400) whose `code` is
 * a `WorkflowErrorCode` and whose message names the node, route or field. Linear in the size of the
 * workflow: its graph is built once (or `graph` is used when it was built of these very `nodes` and
 * `edges` arrays) and every check is one pass.
 */
export function validateWorkflow(workflow: Workflow, graph?: WorkflowGraph): Workflow {
  checkWorkflowLimits(workflow);
  const seenIds = new Set<string>();
  workflow.nodes.forEach((node, index) => {
    if (seenIds.has(node.id))
      fail('duplicate_node_id', `Node id '${node.id}' is used by more than one node.`, `workflow.nodes[${index}].id`);
    seenIds.add(node.id);
  });
  workflow.nodes.forEach((node, index) => node.type === 'webhook' && checkCard(node, index));
  const seenRoutes = new Map<string, string>();
  workflow.nodes.forEach((node, index) => node.type === 'webhook' && checkRoutes(node, index, seenRoutes));
  const built =
    graph && graph.workflow.nodes === workflow.nodes && graph.workflow.edges === workflow.edges ? graph : new WorkflowGraph(workflow);
  checkGraph(workflow, built);
  checkSeenTools(built);
  return workflow;
}

function checkGraph(workflow: Workflow, graph: WorkflowGraph): void {
  const { nodes } = graph;
  const starts = workflow.nodes.filter((node) => node.type === 'start');
  if (starts.length === 0) fail('missing_start_node', 'The workflow has no start node.', 'workflow.nodes');
  if (starts.length > 1)
    fail(
      'multiple_start_nodes',
      `The workflow has ${starts.length} start nodes (${starts.map((n) => `'${n.id}'`).join(', ')}); exactly one is allowed.`,
      'workflow.nodes',
    );
  if (!workflow.nodes.some((node) => node.type === 'end')) fail('missing_end_node', 'The workflow has no end node.', 'workflow.nodes');
  workflow.edges.forEach((edge, index) => {
    for (const side of ['source', 'target'] as const) {
      if (!nodes.has(edge[side]))
        fail(
          'edge_unknown_node',
          `Edge '${edge.id}' has ${side} '${edge[side]}', which is not a node of the workflow.`,
          `workflow.edges[${index}].${side}`,
        );
    }
    const source = nodes.get(edge.source)!;
    const target = nodes.get(edge.target)!;
    if (source.type === 'webhook' && (target.type !== 'agent' || !SLOT_HANDLE.test(edge.targetHandle ?? ''))) {
      fail(
        'invalid_webhook_edge',
        `Edge '${edge.id}' must connect Webhook card '${source.id}' to an agent node with targetHandle 'slot-N'.`,
        `workflow.edges[${index}]`,
      );
    }
    if (isSlotEdge(edge, nodes) && source.type !== 'webhook') {
      fail(
        'invalid_webhook_edge',
        `Edge '${edge.id}' uses tool slot '${edge.targetHandle}' but its source '${source.id}' is not a Webhook card.`,
        `workflow.edges[${index}]`,
      );
    }
    if (target.type === 'webhook')
      fail(
        'invalid_webhook_edge',
        `Edge '${edge.id}' targets Webhook card '${target.id}'; cards only connect to an agent's slot.`,
        `workflow.edges[${index}].target`,
      );
  });
  const { order, cycle } = graph.executionOrder(starts[0]!.id);
  if (cycle) fail('workflow_cycle', `The flow has a cycle through node '${cycle}'.`, 'workflow.edges');
  if (!order.some((id) => nodes.get(id)!.type === 'end')) {
    fail('end_unreachable', `No end node is reachable from start node '${starts[0]!.id}' along the edges.`, 'workflow.edges');
  }
  if ((graph.previous.get(starts[0]!.id) ?? []).length > 0)
    fail('invalid_workflow', `Start node '${starts[0]!.id}' cannot be the target of an edge.`, 'workflow.edges');
}
