import { InvalidRequestError } from '../errors';
import { WEBHOOK_CARD_LIMITS } from '../webhooks/wire/webhook-card';

/**
 * How large one workflow may be. Far beyond any canvas a person draws (see
 * docs/decisions/2026-11-25-workflow-limits.md), and small enough that validating, saving, previewing
 * or starting a run of the largest allowed workflow holds the event loop for a few tens of ms.
 * docs/api.md and docs/agents.md list them; a test checks the docs against these values.
 */
export const WORKFLOW_LIMITS = {
  /** Nodes of one workflow: start, agents, Webhook cards and ends together. */
  nodes: 1_000,
  /** Edges of one workflow: flow edges and card (slot) edges together. */
  edges: 2_000,
  /** Routes of all the Webhook cards of one workflow together (each enabled route is one tool). */
  routes: WEBHOOK_CARD_LIMITS.routes,
  /** Parameters of one route (properties of its tool's input schema). */
  parameters: WEBHOOK_CARD_LIMITS.parameters,
  /**
   * Characters of tool definitions the agent nodes see, summed over the agent nodes: a card seen by
   * five agents (its own slot and four down a pipeline) counts five times. It bounds the tool preview,
   * which lists every agent's tools. See `checkSeenTools` (seen-tools.ts).
   */
  seenToolChars: 2_000_000,
} as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The one count the workflow's schema cannot say (it bounds nodes, edges, the routes of one card and the
 * parameters of one route: `Workflow` in wire/workflow.ts): the routes of all the cards together. It only
 * reads array lengths, so it runs before anything walks the workflow, on a saved workflow or a draft
 * (anything not shaped like a workflow yet is passed over). Throws 400 `array_above_max_length` naming
 * the routes of the card that passes the limit.
 */
export function checkWorkflowLimits(workflow: unknown): void {
  if (!isRecord(workflow) || !Array.isArray(workflow.nodes)) return;
  let routes = 0;
  workflow.nodes.forEach((node: unknown, index) => {
    if (!isRecord(node) || node.type !== 'webhook' || !isRecord(node.data) || !isRecord(node.data.config)) return;
    const cardRoutes = node.data.config.routes;
    if (!Array.isArray(cardRoutes)) return;
    routes += cardRoutes.length;
    if (routes > WORKFLOW_LIMITS.routes) {
      const at = `workflow.nodes[${index}].data.config.routes`;
      throw new InvalidRequestError(
        `Invalid '${at}': the Webhook cards of one workflow may hold at most ${WORKFLOW_LIMITS.routes} routes together, and this card (node '${String(node.id)}') brings them to ${routes}.`,
        at,
        'array_above_max_length',
      );
    }
  });
}
