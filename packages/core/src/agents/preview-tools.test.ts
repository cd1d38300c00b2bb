import { describe, expect, it, vi } from 'vitest';
import { EgressGuard } from '../egress';
import { WebhookToolkit } from '../webhooks';
import { previewWorkflowTools } from './preview-tools';
import { WORKFLOW_LIMITS } from './workflow-limits';

const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: [] }) });
const builtIns = [
  {
    definition: {
      type: 'function' as const,
      function: { name: 'summarize', description: 's', parameters: { type: 'object', properties: {} } },
    },
    run: async () => '',
  },
];

const card = {
  id: 'shop',
  type: 'webhook',
  data: {
    name: 'Shop',
    config: {
      baseUrl: 'https://shop.example.com',
      auth: { type: 'bearer', token: 'sk-shop-secret' },
      routes: [
        {
          name: 'Get Order',
          description: 'Fetch one order.',
          whenToUse: 'When asked about an order.',
          responseDescription: 'The order.',
          triggers: ['cancel-order'],
          path: '/orders/{{order_id}}',
          parameters: [{ name: 'order_id', description: 'The id', howToObtain: 'ask the user', example: 'A-1' }],
        },
        { name: 'cancel-order', description: 'Cancel.', whenToUse: 'On request.', path: '/x', enabled: false },
      ],
    },
  },
};

describe('previewWorkflowTools', () => {
  it('compiles each agent node its tools as a run would, including pipeline cards, with no card secret', async () => {
    const workflow = {
      nodes: [
        { id: 'start', type: 'start', data: {} },
        { id: 'a', type: 'agent', data: { name: 'Support', model: 'fake/m' } },
        { id: 'b', type: 'agent', data: { name: 'Writer', model: 'fake/m', config: { tools_filter: ['get_order'] } } },
        card,
        { id: 'end', type: 'end', data: {} },
      ],
      edges: [
        { id: 'e1', source: 'start', target: 'a' },
        { id: 'e2', source: 'a', target: 'b' },
        { id: 'e3', source: 'b', target: 'end' },
        { id: 's', source: 'shop', target: 'a', targetHandle: 'slot-0' },
      ],
    };
    const preview = await previewWorkflowTools(workflow, toolkit, builtIns);
    expect(preview.validation_error).toBeNull();
    const [support, writer] = preview.agents;
    expect(support!.tools.map((tool) => tool.function.name)).toEqual(['summarize', 'get_order']);
    expect(support!.sources).toEqual({ summarize: 'built-in', get_order: 'shop' });
    const getOrder = support!.tools[1]!.function;
    expect(getOrder.description).toBe(
      'Fetch one order.\n\nWHEN TO USE: When asked about an order.\n\nRESPONSE: The order.\n\nAFTER THIS: consider calling: cancel_order',
    );
    expect(getOrder.parameters).toEqual({
      type: 'object',
      properties: { order_id: { type: 'string', description: 'The id (ask the user) Exemplo: A-1' } },
      required: ['order_id'],
    });
    expect(writer!.cards).toEqual(['shop']);
    expect(writer!.tools.map((tool) => tool.function.name)).toEqual(['get_order']);
    expect(JSON.stringify(preview)).not.toContain('sk-shop-secret');
    expect(JSON.stringify(preview)).not.toContain('shop.example.com');
  });

  it('still previews an unfinished workflow and reports what a save would refuse', async () => {
    const preview = await previewWorkflowTools(
      {
        nodes: [{ id: 'a', type: 'agent', data: { name: 'A', model: 'fake/m' } }, card],
        edges: [{ id: 's', source: 'shop', target: 'a', targetHandle: 'slot-0' }],
      },
      toolkit,
      builtIns,
    );
    expect(preview.agents[0]!.tools.map((tool) => tool.function.name)).toEqual(['summarize', 'get_order']);
    expect(preview.validation_error).toMatchObject({ code: 'missing_start_node' });
    const broken = await previewWorkflowTools(
      {
        nodes: [
          { id: 'a', type: 'agent', data: { name: 'A', model: 'm' } },
          { id: 'c', type: 'webhook', data: { name: 'C', config: { routes: 5 } } },
        ],
        edges: [{ id: 's', source: 'c', target: 'a', targetHandle: 'slot-0' }],
      },
      toolkit,
      builtIns,
    );
    expect(broken.agents[0]!.warnings.join(' ')).toMatch(/could not be compiled/);
    expect(broken.validation_error).not.toBeNull();
  });

  it('reports each overwritten tool with the card and route that had it, as a run logs it', async () => {
    const other = structuredClone(card);
    other.id = 'shop2';
    other.data.name = 'Shop Two';
    other.data.config.routes = [{ name: 'get-order', description: 'Again.', whenToUse: 'Later.', path: '/y' } as any];
    const preview = await previewWorkflowTools(
      {
        nodes: [{ id: 'a', type: 'agent', data: { name: 'A', model: 'fake/m' } }, card, other],
        edges: [
          { id: 's0', source: 'shop', target: 'a', targetHandle: 'slot-0' },
          { id: 's1', source: 'shop2', target: 'a', targetHandle: 'slot-1' },
        ],
      },
      toolkit,
      builtIns,
    );
    const [agent] = preview.agents;
    expect(agent!.sources).toEqual({ summarize: 'built-in', get_order: 'shop2' });
    expect(agent!.tools.find((tool) => tool.function.name === 'get_order')!.function.description).toMatch(/^Again\./);
    expect(agent!.warnings).toEqual([
      "tool names collide in card 'shop2': get_order (Shop/Get Order overwritten by Shop Two/get-order)",
      "route tool 'get_order' of card 'shop2' overwrites an earlier tool",
    ]);
  });

  it('refuses a workflow past the limits with the 400 a save gives, before compiling anything', async () => {
    const compile = vi.fn(toolkit.compile.bind(toolkit));
    const webhooks = { compile, toolDefinition: toolkit.toolDefinition.bind(toolkit), execute: toolkit.execute.bind(toolkit) };
    const agents = Array.from({ length: WORKFLOW_LIMITS.nodes }, (_, i) => ({
      id: `a${i}`,
      type: 'agent',
      data: { name: 'A', model: 'm' },
    }));
    const edges = agents.map((agent) => ({ id: `s${agent.id}`, source: 'shop', target: agent.id, targetHandle: 'slot-0' }));
    await expect(previewWorkflowTools({ nodes: [...agents, card], edges }, webhooks, builtIns)).rejects.toMatchObject({
      status: 400,
      code: 'array_above_max_length',
      param: 'workflow.nodes',
    });
    const big = structuredClone(card);
    (big.data.config.routes[0] as any).description = 'x'.repeat(WORKFLOW_LIMITS.seenToolChars / 4);
    await expect(
      previewWorkflowTools({ nodes: [...agents.slice(0, 5), big], edges: edges.slice(0, 5) }, webhooks, builtIns),
    ).rejects.toMatchObject({ status: 400, code: 'workflow_too_large', param: 'workflow.nodes' });
    expect(compile).not.toHaveBeenCalled();
  });
});
