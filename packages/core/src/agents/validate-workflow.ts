import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidRequestError } from '../errors';
import { placeholderNames, sanitizeToolName } from '../webhooks';
import { checkSeenTools } from './seen-tools';
import { isSlotEdge, SLOT_HANDLE, WorkflowGraph } from './workflow-graph';
import { checkWorkflowLimits } from './workflow-limits';
import { agentDataSchema, endDataSchema, startDataSchema, webhookDataSchema, workflowEnvelopeSchema } from './workflow-schema';
import type { WebhookNode, Workflow, WorkflowNodeType } from './workflow-types';

/** The `code` of each validation failure (400). See docs/agents.md. */
export type WorkflowErrorCode =
  | 'array_above_max_length'
  | 'invalid_workflow'
  | 'duplicate_node_id'
  | 'unknown_node_type'
  | 'webhook_no_config'
  | 'route_missing_field'
  | 'parameter_missing_field'
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

const NODE_TYPES: readonly WorkflowNodeType[] = ['start', 'agent', 'webhook', 'end'];
const ROUTE_FIELDS = ['name', 'description', 'whenToUse', 'path'] as const;
const PARAMETER_FIELDS = ['name', 'description'] as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const checkEnvelope = ajv.compile(workflowEnvelopeSchema);
const checkData: Record<WorkflowNodeType, ValidateFunction> = {
  start: ajv.compile(startDataSchema),
  agent: ajv.compile(agentDataSchema),
  webhook: ajv.compile(webhookDataSchema),
  end: ajv.compile(endDataSchema),
};

function fail(code: WorkflowErrorCode, message: string, param: string): never {
  throw new InvalidRequestError(message, param, code);
}

function describe(errors: ErrorObject[], prefix: string): { message: string; param: string } {
  const first = errors[0]!;
  const path = `${prefix}${first.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.')}`;
  const field = first.keyword === 'required' ? `${path}.${first.params.missingProperty}` : path;
  const detail =
    first.keyword === 'required'
      ? 'is required'
      : first.keyword === 'enum'
        ? `must be one of ${first.params.allowedValues.join(', ')}`
        : first.message;
  return { message: `Invalid workflow: '${field}' ${detail}.`, param: field };
}

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '';
}

function checkCard(node: WebhookNode, index: number): void {
  const config = node.data.config ?? {};
  const at = `workflow.nodes[${index}].data.config`;
  const routes = Array.isArray(config.routes) ? config.routes : [];
  if (isBlank(config.baseUrl) && routes.length === 0) {
    fail('webhook_no_config', `Webhook card '${node.data.name ?? node.id}' (node '${node.id}') has neither a baseUrl nor any routes.`, at);
  }
  routes.forEach((route, r) => {
    const label = `route ${typeof route?.name === 'string' && route.name ? `'${route.name}'` : `#${r + 1}`} of Webhook card '${node.data.name ?? node.id}' (node '${node.id}')`;
    for (const field of ROUTE_FIELDS) {
      if (isBlank(route?.[field]))
        fail('route_missing_field', `The ${label} is missing the required field '${field}'.`, `${at}.routes[${r}].${field}`);
    }
    (Array.isArray(route.parameters) ? route.parameters : []).forEach((parameter, p) => {
      for (const field of PARAMETER_FIELDS) {
        if (isBlank(parameter?.[field])) {
          fail(
            'parameter_missing_field',
            `Parameter #${p + 1} of the ${label} is missing the required field '${field}'.`,
            `${at}.routes[${r}].parameters[${p}].${field}`,
          );
        }
      }
    });
  });
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
 * Checks a workflow: its size (`WORKFLOW_LIMITS`), the ajv schema of the envelope and of each node's
 * data, then the card rules, the graph (one start, an end reachable from it, no cycles, edges between
 * known nodes) and the tools its agents see. Throws `InvalidRequestError` (400) whose `code` is a
 * `WorkflowErrorCode` and whose message names the node, route or field. Linear in the size of the
 * workflow: its graph is built once and every check is one pass.
 */
export function validateWorkflow(input: unknown): Workflow {
  return checkWorkflow(input);
}

/**
 * `validateWorkflow` for a caller that already built the graph (the tool preview): `graph` is used when
 * it was built of these very `nodes` and `edges` arrays, and built here otherwise.
 */
export function checkWorkflow(input: unknown, graph?: WorkflowGraph): Workflow {
  checkWorkflowLimits(input);
  if (!checkEnvelope(input)) {
    const { message, param } = describe(checkEnvelope.errors ?? [], 'workflow');
    fail('invalid_workflow', message, param);
  }
  const workflow = input as Workflow;
  const seenIds = new Set<string>();
  workflow.nodes.forEach((node, index) => {
    if (seenIds.has(node.id))
      fail('duplicate_node_id', `Node id '${node.id}' is used by more than one node.`, `workflow.nodes[${index}].id`);
    seenIds.add(node.id);
    if (!NODE_TYPES.includes(node.type)) {
      fail(
        'unknown_node_type',
        `Node '${node.id}' has unknown type '${node.type}'; expected one of ${NODE_TYPES.join(', ')}.`,
        `workflow.nodes[${index}].type`,
      );
    }
  });
  workflow.nodes.forEach((node, index) => {
    if (node.type === 'webhook') checkCard(node, index);
    const check = checkData[node.type];
    if (!check(node.data)) {
      const { message, param } = describe(check.errors ?? [], `workflow.nodes[${index}].data`);
      fail('invalid_workflow', `${message.replace(/\.$/, '')} (node '${node.id}').`, param);
    }
  });
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
