import { describe, expect, it } from 'vitest';
import { visibleCards, WorkflowGraph } from './workflow-graph';
import type { AgentNode, Workflow } from './workflow-types';

const card = (id: string) => ({ id, type: 'webhook' as const, data: { name: id, config: { baseUrl: 'https://x.example', routes: [] } } });
const agent = (id: string) => ({ id, type: 'agent' as const, data: { name: id, model: 'fake/m' } });

function chain(): Workflow {
  return {
    nodes: [
      { id: 'start', type: 'start', data: {} },
      agent('a'),
      agent('b'),
      agent('c'),
      card('crm'),
      card('mail'),
      card('erp'),
      { id: 'end', type: 'end', data: {} },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'a' },
      { id: 'e2', source: 'a', target: 'b' },
      { id: 'e3', source: 'b', target: 'c' },
      { id: 'e4', source: 'c', target: 'end' },
      { id: 's1', source: 'crm', target: 'a', targetHandle: 'slot-0' },
      { id: 's2', source: 'mail', target: 'b', targetHandle: 'slot-0' },
      { id: 's3', source: 'erp', target: 'b', targetHandle: 'slot-1' },
    ],
  };
}

const ids = (workflow: Workflow, id: string) =>
  visibleCards(workflow, workflow.nodes.find((node) => node.id === id) as AgentNode).map((node) => node.id);

describe('visibleCards (the Visibility rule with pipelines)', () => {
  it('gives an agent its own slots, and every card of the agents that feed it, transitively', () => {
    const workflow = chain();
    expect(ids(workflow, 'a')).toEqual(['crm']);
    expect(ids(workflow, 'b')).toEqual(['crm', 'mail', 'erp']);
    expect(ids(workflow, 'c')).toEqual(['crm', 'mail', 'erp']);
  });

  it('does not pass cards backwards or from a start node, and lists a card reached twice once, at its own slot', () => {
    const workflow = chain();
    workflow.edges.push({ id: 's4', source: 'crm', target: 'c', targetHandle: 'slot-0' });
    expect(ids(workflow, 'c')).toEqual(['mail', 'erp', 'crm']);
    expect(ids(workflow, 'a')).toEqual(['crm']);
  });

  it('stops on a cycle of an unsaved draft instead of looping', () => {
    const workflow = chain();
    workflow.edges.push({ id: 'back', source: 'c', target: 'a' });
    expect(ids(workflow, 'a')).toEqual(['mail', 'erp', 'crm']);
  });

  it('works a whole graph out once, the same whichever agent is asked first, also on a draft with a cycle', () => {
    const workflow = chain();
    workflow.edges.push({ id: 'back', source: 'c', target: 'a' });
    const graph = new WorkflowGraph(workflow);
    const answers = ['c', 'b', 'a'].map((id) => graph.visibleCards(id).map((node) => node.id));
    const again = new WorkflowGraph(workflow);
    expect(['a', 'b', 'c'].map((id) => again.visibleCards(id).map((node) => node.id)).reverse()).toEqual(answers);
    // The edge that closes the cycle (found from 'a', the first agent node) passes nothing on.
    expect(answers).toEqual([
      ['mail', 'erp'],
      ['mail', 'erp'],
      ['mail', 'erp', 'crm'],
    ]);
  });

  it('follows a pipeline of 50,000 agents without recursion: the last agent still sees the card at its head', () => {
    const count = 50_000;
    const nodes: Workflow['nodes'] = [{ id: 'start', type: 'start', data: {} }, card('crm')];
    const edges: Workflow['edges'] = [{ id: 'slot', source: 'crm', target: 'a0', targetHandle: 'slot-0' }];
    for (let i = 0; i < count; i++) {
      nodes.push(agent(`a${i}`));
      edges.push({ id: `f${i}`, source: i === 0 ? 'start' : `a${i - 1}`, target: `a${i}` });
    }
    const graph = new WorkflowGraph({ nodes, edges });
    expect(graph.visibleCards(`a${count - 1}`).map((node) => node.id)).toEqual(['crm']);
    expect(graph.executionOrder('start').order).toHaveLength(count + 1);
  });
});
