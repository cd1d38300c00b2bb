import { InvalidRequestError } from '../errors';

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
  routes: 1_000,
  /** Parameters of one route (properties of its tool's input schema). */
  parameters: 100,
  /**
   * Characters of tool definitions the agent nodes see, summed over the agent nodes: a card seen by
   * five agents (its own slot and four down a pipeline) counts five times. It bounds the tool preview,
   * which lists every agent's tools. See `checkSeenTools` (seen-tools.ts).
   */
  seenToolChars: 2_000_000,
} as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function arrayTooLong(param: string, max: number, length: number): InvalidRequestError {
  return new InvalidRequestError(
    `Invalid '${param}': array too long. Expected an array with maximum length ${max}, but got an array with length ${length} instead.`,
    param,
    'array_above_max_length',
  );
}

/**
 * Checks the counts a workflow may hold (nodes, edges, routes, parameters per route) before anything
 * walks it: the checks only read array lengths, so a workflow far past the limits costs nothing more
 * than its parse. Anything not shaped like a workflow yet is left to validation. Throws 400
 * `array_above_max_length` naming the array.
 */
export function checkWorkflowLimits(workflow: unknown): void {
  if (!isRecord(workflow)) return;
  const { nodes, edges } = workflow;
  if (Array.isArray(nodes) && nodes.length > WORKFLOW_LIMITS.nodes)
    throw arrayTooLong('workflow.nodes', WORKFLOW_LIMITS.nodes, nodes.length);
  if (Array.isArray(edges) && edges.length > WORKFLOW_LIMITS.edges)
    throw arrayTooLong('workflow.edges', WORKFLOW_LIMITS.edges, edges.length);
  if (!Array.isArray(nodes)) return;
  let routes = 0;
  nodes.forEach((node, index) => {
    if (!isRecord(node) || node.type !== 'webhook' || !isRecord(node.data) || !isRecord(node.data.config)) return;
    const cardRoutes = node.data.config.routes;
    if (!Array.isArray(cardRoutes)) return;
    const at = `workflow.nodes[${index}].data.config.routes`;
    routes += cardRoutes.length;
    if (routes > WORKFLOW_LIMITS.routes) {
      throw new InvalidRequestError(
        `Invalid '${at}': the Webhook cards of one workflow may hold at most ${WORKFLOW_LIMITS.routes} routes together, and this card (node '${String(node.id)}') brings them to ${routes}.`,
        at,
        'array_above_max_length',
      );
    }
    cardRoutes.forEach((route, r) => {
      if (isRecord(route) && Array.isArray(route.parameters) && route.parameters.length > WORKFLOW_LIMITS.parameters) {
        throw arrayTooLong(`${at}[${r}].parameters`, WORKFLOW_LIMITS.parameters, route.parameters.length);
      }
    });
  });
}
