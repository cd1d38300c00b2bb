import { WORKFLOW_LIMITS, type Workflow, type WorkflowEdge, type WorkflowNode } from '../agents';
import { checkWorkflow } from '../agents/validate-workflow';
import type { WebhookRoute } from '../webhooks';

/**
 * The largest workflows `WORKFLOW_LIMITS` allows, in the shapes that cost validation and the tool
 * preview the most, for the responsiveness tests and bench/agents-preview.bench.ts. Each is valid (a
 * save goes through every check) and sits at a limit: one more agent, route or node is refused.
 */

/** `count` routes named `<prefix>_<i>`, each with `parameters` parameters (the first one in the path). */
export function manyRoutes(prefix: string, count: number, parameters = 1): WebhookRoute[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    name: `${prefix}_${i}`,
    description: `Reads ${prefix} record ${i}.`,
    whenToUse: 'When the user names one.',
    method: 'GET' as const,
    path: `/records/${i}/{{p0}}`,
    parameters: Array.from({ length: parameters }, (_, p) => ({ name: `p${p}`, description: `Field ${p}` })),
  }));
}

const card = (id: string, routes: WebhookRoute[]): WorkflowNode => ({
  id,
  type: 'webhook',
  data: { name: `Card ${id}`, config: { baseUrl: 'https://api.example.com', auth: { type: 'bearer', token: 'sk-large' }, routes } },
});
const agent = (id: string): WorkflowNode => ({ id, type: 'agent', data: { name: `Agent ${id}`, model: 'fake/m', system_prompt: 'Help.' } });
const start: WorkflowNode = { id: 'start', type: 'start', data: { label: 'Start' } };
const end: WorkflowNode = { id: 'end', type: 'end', data: { label: 'End', status: 'success' } };

/** start -> a1 -> … -> aN -> end, one card of `routes` routes in a1's slot: every agent receives it. */
export function pipelineWorkflow(agents: number, routes: WebhookRoute[]): Workflow {
  const nodes = [start, card('card', routes)];
  const edges: WorkflowEdge[] = [{ id: 'slot', source: 'card', target: 'a1', targetHandle: 'slot-0' }];
  for (let i = 1; i <= agents; i++) {
    nodes.push(agent(`a${i}`));
    edges.push({ id: `f${i}`, source: i === 1 ? 'start' : `a${i - 1}`, target: `a${i}` });
  }
  nodes.push(end);
  edges.push({ id: 'f-end', source: `a${agents}`, target: 'end' });
  return { nodes, edges };
}

/** start -> each of N agents -> end in parallel, every agent wired to the same card of `routes` routes. */
export function fanOutWorkflow(agents: number, routes: WebhookRoute[]): Workflow {
  const nodes = [start, card('card', routes), end];
  const edges: WorkflowEdge[] = [];
  for (let i = 1; i <= agents; i++) {
    nodes.push(agent(`a${i}`));
    edges.push({ id: `in${i}`, source: 'start', target: `a${i}` });
    edges.push({ id: `out${i}`, source: `a${i}`, target: 'end' });
    edges.push({ id: `slot${i}`, source: 'card', target: `a${i}`, targetHandle: 'slot-0' });
  }
  return { nodes, edges };
}

/**
 * Layers of agents, each agent fed by every agent of the layer before (the most flow edges the limits
 * allow), one card per agent of the first layer: the most merging of received cards.
 */
export function layeredWorkflow(width: number, depth: number): Workflow {
  const nodes = [start, end];
  const edges: WorkflowEdge[] = [];
  const id = (layer: number, i: number) => `l${layer}a${i}`;
  for (let layer = 0; layer < depth; layer++) {
    for (let i = 0; i < width; i++) {
      nodes.push(agent(id(layer, i)));
      if (layer === 0) {
        edges.push({ id: `s${i}`, source: 'start', target: id(0, i) });
        nodes.push(card(`c${i}`, manyRoutes(`c${i}`, 1)));
        edges.push({ id: `slot${i}`, source: `c${i}`, target: id(0, i), targetHandle: 'slot-0' });
      } else {
        for (let j = 0; j < width; j++) edges.push({ id: `e${layer}-${j}-${i}`, source: id(layer - 1, j), target: id(layer, i) });
      }
    }
  }
  for (let i = 0; i < width; i++) edges.push({ id: `end${i}`, source: id(depth - 1, i), target: 'end' });
  return { nodes, edges };
}

const allowed = (workflow: Workflow) => {
  try {
    checkWorkflow(workflow);
    return true;
  } catch {
    return false;
  }
};

/** The largest `n` in 1..`max` for which `build(n)` passes validation (allowed for `n` is monotone). */
export function largestAllowed(build: (n: number) => Workflow, max: number): { n: number; workflow: Workflow } {
  let low = 1;
  let high = max;
  if (!allowed(build(low))) throw new Error('even the smallest workflow of this shape is refused');
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (allowed(build(middle))) low = middle;
    else high = middle - 1;
  }
  return { n: low, workflow: build(low) };
}

/** The largest allowed workflow of each costly shape, by name. */
export function largestWorkflows(): Record<string, Workflow> {
  const { nodes, routes, parameters } = WORKFLOW_LIMITS;
  return {
    /** As many agents as the nodes allow, all receiving one card (as many routes as the budget leaves). */
    pipeline: largestAllowed((n) => pipelineWorkflow(nodes - 3, manyRoutes('r', n)), routes).workflow,
    /** Every route the limit allows on one card, seen by as many agents as the budget allows. */
    fanOut: largestAllowed((n) => fanOutWorkflow(n, manyRoutes('r', routes)), nodes - 3).workflow,
    /** Every route the limit allows, each with as many parameters as the budget leaves, seen by one agent. */
    parameters: largestAllowed((n) => fanOutWorkflow(1, manyRoutes('r', routes, n)), parameters).workflow,
    /** The most flow edges: layers of agents fully joined to the next. */
    layered: layeredWorkflow(21, 5),
    /** A route path of a million `{`: the placeholder scan must stay linear. */
    braces: fanOutWorkflow(1, [{ ...manyRoutes('r', 1)[0]!, path: '{'.repeat(1_000_000), parameters: [] }]),
  };
}
