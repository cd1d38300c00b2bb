import { pipelineCards } from './visible-cards';
import type { AgentNode, WebhookNode, Workflow, WorkflowEdge, WorkflowNode } from './workflow-types';

/** Edges from a Webhook card into an agent's tool slot carry `targetHandle = slot-N`. */
export const SLOT_HANDLE = /^slot-(\d+)$/;

/** True for an edge that wires a tool card to an agent rather than moving the flow on. */
export function isSlotEdge(edge: WorkflowEdge, nodes: ReadonlyMap<string, WorkflowNode>): boolean {
  return (typeof edge.targetHandle === 'string' && SLOT_HANDLE.test(edge.targetHandle)) || nodes.get(edge.source)?.type === 'webhook';
}

/** The slot number of a card edge (`slot-3` -> 3); an edge without one sorts after every slot. */
const slotIndex = (edge: WorkflowEdge) => Number(SLOT_HANDLE.exec(edge.targetHandle ?? '')?.[1] ?? Number.MAX_SAFE_INTEGER);

/**
 * The graph of a workflow, built once in one pass over its nodes and edges and then shared by
 * validation, the tool preview and a run, so that none of them walks the edges again per node.
 * Tolerates an unfinished draft: edges to unknown nodes are left out of the flow, a repeated node id
 * keeps its last node.
 */
export class WorkflowGraph {
  readonly workflow: Workflow;
  /** Nodes by id. */
  readonly nodes: ReadonlyMap<string, WorkflowNode>;
  /** Flow successors of each node (slot edges excluded), in edge order, each once. */
  readonly next: ReadonlyMap<string, readonly string[]>;
  /** Flow predecessors of each node (slot edges excluded), in edge order, each once. */
  readonly previous: ReadonlyMap<string, readonly string[]>;
  readonly #slots = new Map<string, WebhookNode[]>();
  #visible: Map<string, WebhookNode[]> | undefined;

  constructor(workflow: Workflow) {
    this.workflow = workflow;
    const nodes = new Map(workflow.nodes.map((node) => [node.id, node]));
    const next = new Map<string, string[]>();
    const previous = new Map<string, string[]>();
    for (const node of workflow.nodes) {
      next.set(node.id, []);
      previous.set(node.id, []);
    }
    const seen = new Set<string>();
    const cardEdges = new Map<string, WorkflowEdge[]>();
    for (const edge of workflow.edges) {
      if (nodes.get(edge.source)?.type === 'webhook') {
        const wired = cardEdges.get(edge.target);
        if (wired) wired.push(edge);
        else cardEdges.set(edge.target, [edge]);
      }
      if (isSlotEdge(edge, nodes) || !nodes.has(edge.source) || !nodes.has(edge.target)) continue;
      // `\u0000` cannot be typed into a node id on the canvas; a pair seen twice adds nothing.
      const pair = `${edge.source}\u0000${edge.target}`;
      if (seen.has(pair)) continue;
      seen.add(pair);
      next.get(edge.source)!.push(edge.target);
      previous.get(edge.target)!.push(edge.source);
    }
    // Array.prototype.sort is stable: cards on the same slot keep their edge order.
    for (const [target, edges] of cardEdges) {
      const cards = edges.sort((a, b) => slotIndex(a) - slotIndex(b)).map((edge) => nodes.get(edge.source) as WebhookNode);
      this.#slots.set(target, [...new Set(cards)]);
    }
    this.nodes = nodes;
    this.next = next;
    this.previous = previous;
  }

  /** The Webhook cards wired to an agent's slots, in slot order, each once. */
  cardsOf(agent: AgentNode | string): readonly WebhookNode[] {
    return this.#slots.get(typeof agent === 'string' ? agent : agent.id) ?? [];
  }

  /**
   * The cards an agent node sees (its own slots and those it receives through a pipeline, see
   * `pipelineCards`); worked out for every agent node at once, the first time one is asked for.
   */
  visibleCards(agent: AgentNode | string): readonly WebhookNode[] {
    this.#visible ??= pipelineCards(this);
    const id = typeof agent === 'string' ? agent : agent.id;
    return this.#visible.get(id) ?? this.cardsOf(id);
  }

  /**
   * Nodes reachable from `startId`, in an order where every node comes after its reachable
   * predecessors (Kahn's algorithm). Returns `cycle` naming a node on a cycle when there is one.
   */
  executionOrder(startId: string): { order: string[]; cycle?: string } {
    const reachable = new Set<string>([startId]);
    const queue = [startId];
    for (let head = 0; head < queue.length; head++) {
      for (const target of this.next.get(queue[head]!) ?? []) {
        if (!reachable.has(target)) {
          reachable.add(target);
          queue.push(target);
        }
      }
    }
    const indegree = new Map<string, number>([...reachable].map((id) => [id, 0]));
    for (const id of reachable) for (const target of this.next.get(id) ?? []) indegree.set(target, indegree.get(target)! + 1);
    const order = [...reachable].filter((id) => indegree.get(id) === 0);
    for (let head = 0; head < order.length; head++) {
      for (const target of this.next.get(order[head]!) ?? []) {
        indegree.set(target, indegree.get(target)! - 1);
        if (indegree.get(target) === 0) order.push(target);
      }
    }
    if (order.length === reachable.size) return { order };
    const ordered = new Set(order);
    return { order, cycle: [...reachable].find((id) => !ordered.has(id)) };
  }
}

/**
 * The Webhook cards whose tools one agent node sees (the rule: `pipelineCards`). Builds the workflow's
 * graph: a caller asking about several agents of one workflow holds a `WorkflowGraph` instead and asks
 * it (`graph.visibleCards(agent)`), which works every agent out once.
 */
export function visibleCards(workflow: Workflow, agent: AgentNode): WebhookNode[] {
  return [...new WorkflowGraph(workflow).visibleCards(agent)];
}
