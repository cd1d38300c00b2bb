import type { AgentNode, WebhookNode, Workflow, WorkflowEdge, WorkflowNode } from './workflow-types';

/** Edges from a Webhook card into an agent's tool slot carry `targetHandle = slot-N`. */
export const SLOT_HANDLE = /^slot-(\d+)$/;

/** True for an edge that wires a tool card to an agent rather than moving the flow on. */
export function isSlotEdge(edge: WorkflowEdge, nodes: ReadonlyMap<string, WorkflowNode>): boolean {
  return (typeof edge.targetHandle === 'string' && SLOT_HANDLE.test(edge.targetHandle)) || nodes.get(edge.source)?.type === 'webhook';
}

export function nodeMap(workflow: Workflow): Map<string, WorkflowNode> {
  return new Map(workflow.nodes.map((node) => [node.id, node]));
}

/** Flow successors and predecessors (slot edges excluded), in edge order. */
export function flowGraph(workflow: Workflow): { next: Map<string, string[]>; previous: Map<string, string[]> } {
  const nodes = nodeMap(workflow);
  const next = new Map<string, string[]>();
  const previous = new Map<string, string[]>();
  for (const node of workflow.nodes) {
    next.set(node.id, []);
    previous.set(node.id, []);
  }
  for (const edge of workflow.edges) {
    if (isSlotEdge(edge, nodes) || !nodes.has(edge.source) || !nodes.has(edge.target)) continue;
    if (!next.get(edge.source)!.includes(edge.target)) next.get(edge.source)!.push(edge.target);
    if (!previous.get(edge.target)!.includes(edge.source)) previous.get(edge.target)!.push(edge.source);
  }
  return { next, previous };
}

/**
 * Nodes reachable from `startId`, in an order where every node comes after its reachable
 * predecessors (Kahn's algorithm). Returns `cycle` naming a node on a cycle when there is one.
 */
export function executionOrder(workflow: Workflow, startId: string): { order: string[]; cycle?: string } {
  const { next } = flowGraph(workflow);
  const reachable = new Set<string>([startId]);
  const queue = [startId];
  while (queue.length > 0) {
    for (const target of next.get(queue.shift()!) ?? []) {
      if (!reachable.has(target)) {
        reachable.add(target);
        queue.push(target);
      }
    }
  }
  const indegree = new Map<string, number>([...reachable].map((id) => [id, 0]));
  for (const id of reachable) for (const target of next.get(id) ?? []) indegree.set(target, indegree.get(target)! + 1);
  const ready = [...reachable].filter((id) => indegree.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const target of next.get(id) ?? []) {
      indegree.set(target, indegree.get(target)! - 1);
      if (indegree.get(target) === 0) ready.push(target);
    }
  }
  const cycle = [...reachable].find((id) => !order.includes(id));
  return cycle ? { order, cycle } : { order };
}

/** The Webhook cards wired to an agent's slots, in slot order. */
export function cardsOf(workflow: Workflow, agent: AgentNode): WebhookNode[] {
  const nodes = nodeMap(workflow);
  const slotIndex = (edge: WorkflowEdge) => Number(SLOT_HANDLE.exec(edge.targetHandle ?? '')?.[1] ?? Number.MAX_SAFE_INTEGER);
  return workflow.edges
    .filter((edge) => edge.target === agent.id && nodes.get(edge.source)?.type === 'webhook')
    .sort((a, b) => slotIndex(a) - slotIndex(b))
    .map((edge) => nodes.get(edge.source) as WebhookNode)
    .filter((card, index, all) => all.indexOf(card) === index);
}
