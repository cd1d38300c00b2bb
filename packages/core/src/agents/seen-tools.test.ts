import { describe, expect, it } from 'vitest';
import { EgressGuard } from '../egress';
import { WebhookToolkit } from '../webhooks';
import { previewWorkflowTools } from './preview-tools';
import { cardWeight } from './seen-tools';
import type { WebhookNode } from './workflow-types';

const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: [] }) });

const card: WebhookNode = {
  id: 'crm-card',
  type: 'webhook',
  data: {
    name: 'CRM',
    config: {
      baseUrl: 'https://crm.example.com',
      auth: { type: 'bearer', token: 'sk-crm' },
      routes: Array.from({ length: 20 }, (_, i) => ({
        name: `Find Customer ${i}`,
        description: `Finds customers by name or e-mail, variant ${i}. `.repeat(3),
        whenToUse: 'When the user names a customer and the id is not known yet.',
        responseDescription: 'A list of customers with id, name and e-mail.',
        dependsOn: ['Login'],
        triggers: ['Get Customer', 'Update Customer'],
        path: '/customers',
        bodyTemplate: '{"query": "{{query}}"}'.repeat(20),
        parameters: [
          { name: 'query', description: 'Name or e-mail to look for.', howToObtain: 'Ask the user.', example: 'ada@example.com' },
          { name: 'limit', type: 'number', required: false, description: 'Most results.' },
          { name: 'tags', type: 'array', required: false, description: 'Tags to match.' },
        ],
      })),
    },
  },
};

describe('cardWeight (what a card adds to the tools of each agent that sees it)', () => {
  const listedFor = async (node: WebhookNode) => {
    const preview = await previewWorkflowTools(
      {
        nodes: [{ id: 'agent', type: 'agent', data: { name: 'A', model: 'fake/m' } }, node],
        edges: [{ id: 's', source: node.id, target: 'agent', targetHandle: 'slot-0' }],
      },
      toolkit,
      [],
    );
    const [agent] = preview.agents;
    return JSON.stringify(agent!.tools).length + JSON.stringify(agent!.sources).length + JSON.stringify(agent!.cards).length;
  };

  it('is not below what the tool preview lists for a card, and close to it, however small its routes or odd their text', async () => {
    const small = structuredClone(card);
    small.data.config.routes = [{ name: 'r', description: 'd', whenToUse: 'w', path: '/' }];
    const quoted = structuredClone(card);
    quoted.data.config.routes![0]!.description = '"\\\n\u0001\ud800'.repeat(1000);
    for (const node of [small, quoted]) {
      const listed = await listedFor(node);
      expect(cardWeight(node)).toBeGreaterThanOrEqual(listed);
      expect(cardWeight(node)).toBeLessThan(listed * 2);
    }
  });

  it('is close to, and not below, what the tool preview lists for the card', async () => {
    const preview = await previewWorkflowTools(
      {
        nodes: [{ id: 'agent', type: 'agent', data: { name: 'A', model: 'fake/m' } }, card],
        edges: [{ id: 's', source: 'crm-card', target: 'agent', targetHandle: 'slot-0' }],
      },
      toolkit,
      [],
    );
    const [agent] = preview.agents;
    expect(agent!.tools).toHaveLength(20);
    const listed = JSON.stringify(agent!.tools).length + JSON.stringify(agent!.sources).length + JSON.stringify(agent!.cards).length;
    const weight = cardWeight(card);
    expect(weight).toBeGreaterThanOrEqual(listed);
    expect(weight).toBeLessThan(listed * 1.3);
  });

  it('counts what an unfinished card would show, and nothing for what it cannot', () => {
    const unfinished = { ...card, data: { name: 'CRM', config: { routes: 'not yet' } } } as unknown as WebhookNode;
    // Its entry in the agent's `cards` list.
    expect(cardWeight(unfinished)).toBe('"crm-card",'.length);
    const disabled = structuredClone(card);
    for (const route of disabled.data.config.routes!) route.enabled = false;
    expect(cardWeight(disabled)).toBe('"crm-card",'.length);
  });
});
