import { cardsOf, flowGraph, nodeMap } from './workflow-graph';
import type { AgentNode, WebhookNode, Workflow } from './workflow-types';

/**
 * The Webhook cards whose tools an agent node sees: those wired to its own slots and those it receives
 * through a pipeline. A pipeline is a flow edge from one agent node to another: the receiving agent
 * sees every card its feeding agents see (their own slots and what they received in turn), so a card
 * wired once at the head of a chain of agents serves the whole chain.
 *
 * Order decides name collisions (a later tool overwrites an earlier one): received cards come first,
 * in flow-edge order, and the node's own slots last, so its own cards win. A card reached twice is
 * listed once, at its last position. `tools_filter` is applied afterwards, per node, and does not
 * narrow what a node passes on.
 */
export function visibleCards(workflow: Workflow, agent: AgentNode): WebhookNode[] {
  const nodes = nodeMap(workflow);
  const { previous } = flowGraph(workflow);
  const memo = new Map<string, WebhookNode[]>();
  const collect = (node: AgentNode, visiting: Set<string>): WebhookNode[] => {
    const known = memo.get(node.id);
    if (known) return known;
    // A draft may still hold a cycle (validation refuses it on save); stop at a node already on the path.
    if (visiting.has(node.id)) return [];
    visiting.add(node.id);
    const cards: WebhookNode[] = [];
    for (const sourceId of previous.get(node.id) ?? []) {
      const source = nodes.get(sourceId);
      if (source?.type === 'agent') cards.push(...collect(source, visiting));
    }
    cards.push(...cardsOf(workflow, node));
    visiting.delete(node.id);
    const unique = cards.filter((card, index) => cards.lastIndexOf(card) === index);
    memo.set(node.id, unique);
    return unique;
  };
  return collect(agent, new Set());
}
