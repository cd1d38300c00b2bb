import type { Workflow as ApiWorkflow, WorkflowEdge, WorkflowNode, WorkflowNodeType as NodeType } from '@fathom/core';

export type { NodeType };

/**
 * The workflow JSON is the editor's single state; the canvas, the forms and the JSON view are views
 * of it. These helpers create nodes, wire edges by the API's rules, and place server errors.
 */

/** A node of the API's workflow (`@fathom/core`'s declaration), with its canvas position: the server keeps extra keys as they are. */
export type WfNode = WorkflowNode & { position?: { x: number; y: number } };

export type WfEdge = WorkflowEdge;

/** The API's workflow, its nodes with their canvas positions. */
export interface Workflow extends ApiWorkflow {
  nodes: WfNode[];
}

/** What the API answers in place of a stored secret; sending it back keeps the secret. */
export const SECRET_MASK = '********';

export const SLOT = /^slot-(\d+)$/;

export const emptyWorkflow = (): Workflow => ({ nodes: [], edges: [] });

function uniqueId(workflow: Workflow, prefix: string): string {
  const taken = new Set(workflow.nodes.map((node) => node.id));
  for (let n = 1; ; n++) if (!taken.has(`${prefix}-${n}`)) return `${prefix}-${n}`;
}

/** A new node of `type`, with the data the editor starts from. */
export function newNode(type: NodeType, id: string, models: string[], position?: { x: number; y: number }): WfNode {
  const number = id.split('-').pop();
  switch (type) {
    case 'start':
      return { id, type, position, data: { label: 'Start', variables: [] } };
    case 'agent':
      return {
        id,
        type,
        position,
        data: { name: `Agent ${number}`, model: models[0] ?? '', system_prompt: '', config: { tools_filter: [] } },
      };
    case 'webhook':
      return {
        id,
        type,
        position,
        data: {
          name: `Webhook ${number}`,
          config: { baseUrl: '', auth: { type: 'none' }, timeout: 30000, retryOnError: true, maxRetries: 2, routes: [] },
        },
      };
    case 'end':
      return { id, type, position, data: { label: 'End', status: 'success' } };
  }
}

/** Adds a node of `type` near `position` (or below the others); returns the new workflow and the node's id. */
export function addNode(workflow: Workflow, type: NodeType, models: string[], position?: { x: number; y: number }): [Workflow, string] {
  const id = uniqueId(workflow, type);
  const lowest = workflow.nodes.reduce((max, node) => Math.max(max, node.position?.y ?? 0), 0);
  const place = position ?? { x: type === 'webhook' ? 0 : 280, y: workflow.nodes.length === 0 ? 40 : lowest + 140 };
  return [{ ...workflow, nodes: [...workflow.nodes, newNode(type, id, models, place)] }, id];
}

export function removeNodes(workflow: Workflow, ids: Set<string>): Workflow {
  return {
    nodes: workflow.nodes.filter((node) => !ids.has(node.id)),
    edges: workflow.edges.filter((edge) => !ids.has(edge.source) && !ids.has(edge.target)),
  };
}

export function updateNode(workflow: Workflow, id: string, change: (node: WfNode) => WfNode): Workflow {
  return { ...workflow, nodes: workflow.nodes.map((node) => (node.id === id ? change(node) : node)) };
}

/** Slot indexes in use on an agent node. */
export function usedSlots(workflow: Workflow, agentId: string): number[] {
  return workflow.edges
    .filter((edge) => edge.target === agentId && SLOT.test(edge.targetHandle ?? ''))
    .map((edge) => Number(SLOT.exec(edge.targetHandle!)![1]));
}

/** Slots an agent shows: every used one plus one free, so a card can always be attached. */
export function visibleSlots(workflow: Workflow, agentId: string): number[] {
  const used = usedSlots(workflow, agentId);
  const count = used.length === 0 ? 1 : Math.max(...used) + 2;
  return Array.from({ length: count }, (_, index) => index);
}

export function firstFreeSlot(workflow: Workflow, agentId: string): number {
  const used = new Set(usedSlots(workflow, agentId));
  let slot = 0;
  while (used.has(slot)) slot++;
  return slot;
}

/**
 * Wires `source` to `target`. A Webhook card goes into an agent's slot (the given one, else the first
 * free one); anything else is a flow edge. Returns the workflow unchanged when the edge makes no sense.
 */
export function connect(workflow: Workflow, source: string, target: string, targetHandle?: string | null): Workflow {
  const from = workflow.nodes.find((node) => node.id === source);
  const to = workflow.nodes.find((node) => node.id === target);
  if (!from || !to || source === target) return workflow;
  if (from.type === 'webhook') {
    if (to.type !== 'agent') return workflow;
    const handle = targetHandle && SLOT.test(targetHandle) ? targetHandle : `slot-${firstFreeSlot(workflow, target)}`;
    if (workflow.edges.some((edge) => edge.target === target && edge.targetHandle === handle)) return workflow;
    if (workflow.edges.some((edge) => edge.source === source && edge.target === target)) return workflow;
    return { ...workflow, edges: [...workflow.edges, { id: `e-${source}-${target}-${handle}`, source, target, targetHandle: handle }] };
  }
  if (to.type === 'webhook' || to.type === 'start' || from.type === 'end') return workflow;
  if (workflow.edges.some((edge) => edge.source === source && edge.target === target && !SLOT.test(edge.targetHandle ?? '')))
    return workflow;
  return { ...workflow, edges: [...workflow.edges, { id: `e-${source}-${target}`, source, target }] };
}

export function removeEdges(workflow: Workflow, ids: Set<string>): Workflow {
  return { ...workflow, edges: workflow.edges.filter((edge) => !ids.has(edge.id)) };
}

/** Where a server error points: `workflow.nodes[2].data.config.routes[0].whenToUse` -> node id + `data.config...`. */
export interface FieldError {
  message: string;
  code?: string | null;
  nodeId?: string;
  /** Path inside the node, e.g. `data.config.routes[0].whenToUse`; empty for the node itself. */
  path?: string;
}

export function locateError(workflow: Workflow, error: { message: string; param?: string | null; code?: string | null }): FieldError {
  const match = /^workflow\.nodes\[(\d+)\](?:\.(.*))?$/.exec(error.param ?? '');
  const node = match ? workflow.nodes[Number(match[1])] : undefined;
  if (node) return { message: error.message, code: error.code, nodeId: node.id, path: match![2] ?? '' };
  // Messages name nodes by id ("Agent node 'x'", "Webhook card 'y'") when the param does not.
  const named = workflow.nodes.find((candidate) => error.message.includes(`'${candidate.id}'`));
  return { message: error.message, code: error.code, nodeId: named?.id };
}

/** A node's label on the canvas. */
export function nodeTitle(node: WfNode): string {
  if (node.type === 'agent' || node.type === 'webhook') return node.data?.name || node.id;
  return node.data?.label || node.id;
}
