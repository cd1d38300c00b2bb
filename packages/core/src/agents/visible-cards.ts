import type { WorkflowGraph } from './workflow-graph';
import type { WebhookNode } from './workflow-types';

/** `cards` with each card kept once, at its last position. */
function lastOccurrences(cards: readonly WebhookNode[]): WebhookNode[] {
  const seen = new Set<WebhookNode>();
  const kept: WebhookNode[] = [];
  for (let index = cards.length - 1; index >= 0; index--) {
    const card = cards[index]!;
    if (seen.has(card)) continue;
    seen.add(card);
    kept.push(card);
  }
  return kept.reverse();
}

/**
 * The Webhook cards whose tools each agent node of the graph sees: those wired to its own slots and
 * those it receives through a pipeline. A pipeline is a flow edge from one agent node to another: the
 * receiving agent sees every card its feeding agents see (their own slots and what they received in
 * turn), so a card wired once at the head of a chain of agents serves the whole chain.
 *
 * Order decides name collisions (a later tool overwrites an earlier one): received cards come first,
 * in flow-edge order, and the node's own slots last, so its own cards win. A card reached twice is
 * listed once, at its last position. `tools_filter` is applied afterwards, per node, and does not
 * narrow what a node passes on.
 *
 * Every agent node is worked out once, in one depth-first walk over the flow edges from the agent
 * nodes in node order (no recursion, so a long chain cannot overflow the stack): the work is the flow
 * edges plus the cards each agent receives. A draft may still hold a cycle (validation refuses it on
 * save): an edge that closes a cycle in that walk passes nothing on.
 */
export function pipelineCards(graph: WorkflowGraph): Map<string, WebhookNode[]> {
  const seen = new Map<string, WebhookNode[]>();
  const onPath = new Set<string>();
  const isAgent = (id: string) => graph.nodes.get(id)?.type === 'agent';
  for (const node of graph.workflow.nodes) {
    if (node.type !== 'agent' || seen.has(node.id)) continue;
    const stack = [{ id: node.id, next: 0 }];
    onPath.add(node.id);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const sources = graph.previous.get(frame.id) ?? [];
      if (frame.next < sources.length) {
        const source = sources[frame.next++]!;
        if (isAgent(source) && !seen.has(source) && !onPath.has(source)) {
          onPath.add(source);
          stack.push({ id: source, next: 0 });
        }
        continue;
      }
      const cards: WebhookNode[] = [];
      // A source still on the path (it closes a cycle) has no entry yet and passes nothing on.
      for (const source of sources) for (const card of (isAgent(source) && seen.get(source)) || []) cards.push(card);
      for (const card of graph.cardsOf(frame.id)) cards.push(card);
      seen.set(frame.id, lastOccurrences(cards));
      onPath.delete(frame.id);
      stack.pop();
    }
  }
  return seen;
}
