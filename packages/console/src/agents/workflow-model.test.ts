import { describe, expect, it } from 'vitest';
import { addNode, connect, emptyWorkflow, locateError, removeNodes, visibleSlots, type Workflow } from './workflow-model';

function build(): Workflow {
  let workflow = emptyWorkflow();
  for (const type of ['start', 'agent', 'webhook', 'webhook', 'end'] as const) [workflow] = addNode(workflow, type, ['fake/m']);
  return workflow;
}

describe('workflow model of the editor', () => {
  it('adds nodes with unique ids and the defaults the API expects', () => {
    const workflow = build();
    expect(workflow.nodes.map((node) => node.id)).toEqual(['start-1', 'agent-1', 'webhook-1', 'webhook-2', 'end-1']);
    expect(workflow.nodes[1]!.data).toMatchObject({ model: 'fake/m', config: { tools_filter: [] } });
    expect(workflow.nodes[2]).toMatchObject({
      type: 'webhook',
      data: { config: { auth: { type: 'none' }, timeout: 30000, retryOnError: true, maxRetries: 2, routes: [] } },
    });
  });

  it('puts cards into the first free slot and always shows one free slot more', () => {
    let workflow = build();
    expect(visibleSlots(workflow, 'agent-1')).toEqual([0]);
    workflow = connect(workflow, 'webhook-1', 'agent-1');
    expect(workflow.edges.at(-1)).toMatchObject({ source: 'webhook-1', target: 'agent-1', targetHandle: 'slot-0' });
    expect(visibleSlots(workflow, 'agent-1')).toEqual([0, 1]);
    workflow = connect(workflow, 'webhook-2', 'agent-1', 'slot-3');
    expect(visibleSlots(workflow, 'agent-1')).toEqual([0, 1, 2, 3, 4]);
    // A taken slot, a second edge between the same pair, and a card into a non-agent change nothing.
    expect(connect(workflow, 'webhook-2', 'agent-1', 'slot-0')).toBe(workflow);
    expect(connect(workflow, 'webhook-1', 'agent-1')).toBe(workflow);
    expect(connect(workflow, 'webhook-1', 'end-1')).toBe(workflow);
  });

  it('makes flow edges between flow nodes only, and removing a node removes its edges', () => {
    let workflow = connect(connect(build(), 'start-1', 'agent-1'), 'agent-1', 'end-1');
    expect(workflow.edges.map((edge) => [edge.source, edge.target, edge.targetHandle])).toEqual([
      ['start-1', 'agent-1', undefined],
      ['agent-1', 'end-1', undefined],
    ]);
    expect(connect(workflow, 'end-1', 'agent-1')).toBe(workflow);
    expect(connect(workflow, 'agent-1', 'start-1')).toBe(workflow);
    expect(connect(workflow, 'agent-1', 'webhook-1')).toBe(workflow);
    workflow = removeNodes(workflow, new Set(['agent-1']));
    expect(workflow.edges).toEqual([]);
  });

  it('places a server error on the node and field its param names', () => {
    const workflow = build();
    expect(
      locateError(workflow, {
        message: 'Missing whenToUse',
        param: 'workflow.nodes[2].data.config.routes[0].whenToUse',
        code: 'route_missing_field',
      }),
    ).toEqual({
      message: 'Missing whenToUse',
      code: 'route_missing_field',
      nodeId: 'webhook-1',
      path: 'data.config.routes[0].whenToUse',
    });
    expect(locateError(workflow, { message: "Agent node 'agent-1': no vendor", param: 'model' }).nodeId).toBe('agent-1');
    expect(locateError(workflow, { message: 'No start node.', param: null }).nodeId).toBeUndefined();
  });
});
