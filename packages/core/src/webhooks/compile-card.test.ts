import { describe, expect, it } from 'vitest';
import { EgressGuard } from '../egress';
import { sanitizeToolName } from './sanitize-name';
import { WebhookToolkit } from './webhook-toolkit';
import type { WebhookCard, WebhookRoute } from './types';

const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: [] }) });

function card(name: string, routes: Partial<WebhookRoute>[], extra: Partial<WebhookCard['config']> = {}): WebhookCard {
  return {
    name,
    config: {
      baseUrl: 'https://api.example.com',
      auth: { type: 'bearer', token: 'sk-secret-token' },
      defaultHeaders: { 'X-Tenant': 'tenant-secret' },
      routes: routes.map((route, index) => ({ name: `route ${index}`, description: 'd', whenToUse: 'w', path: '/', ...route })),
      ...extra,
    },
  };
}

describe('name sanitization', () => {
  it.each([
    ['Buscar Pedido', 'buscar_pedido'],
    ['Criar-Cliente Novo', 'criar_cliente_novo'],
    ['Ação Única', 'acao_unica'],
    ['ÉMISSÃO de Nota-Fiscal', 'emissao_de_nota_fiscal'],
    ['get_order', 'get_order'],
  ])('%s -> %s', (name, expected) => expect(sanitizeToolName(name)).toBe(expected));

  it('cuts names to 64 characters', () => {
    const name = sanitizeToolName('a'.repeat(100));
    expect(name).toHaveLength(64);
    expect(sanitizeToolName(`${'b'.repeat(63)} tail`)).toBe(`${'b'.repeat(63)}_`);
  });

  it('drops characters providers refuse in function names', () => {
    expect(sanitizeToolName('orders.v2/list?')).toBe('ordersv2list');
  });
});

describe('tool construction', () => {
  it('assembles the description: description, WHEN TO USE, RESPONSE, chaining lines', () => {
    const { tools } = toolkit.compile(
      card('Shop', [
        {
          name: 'Get Order',
          description: 'Reads one order.',
          whenToUse: 'When the user gives an order number.',
          responseDescription: 'The order with its items.',
          dependsOn: ['List Orders'],
          triggers: ['Cancel-Order', 'Track Order'],
        },
      ]),
    );
    expect(tools[0]!.description).toBe(
      'Reads one order.\n\nWHEN TO USE: When the user gives an order number.\n\nRESPONSE: The order with its items.\n\n' +
        'DEPENDS ON: call first: list_orders\nAFTER THIS: consider calling: cancel_order, track_order',
    );
  });

  it('leaves the RESPONSE block out when there is no responseDescription', () => {
    const { tools } = toolkit.compile(card('Shop', [{ name: 'ping', description: 'Checks.', whenToUse: 'Always.' }]));
    expect(tools[0]!.description).toBe('Checks.\n\nWHEN TO USE: Always.');
  });

  it('turns parameters into a JSON Schema with types (default string) and a required list (default true)', () => {
    const { tools } = toolkit.compile(
      card('Shop', [
        {
          name: 'search',
          parameters: [
            { name: 'query', description: 'Search text', howToObtain: 'ask the user', example: 'red shoes' },
            { name: 'limit', type: 'number', required: false, description: 'Max results', example: '10' },
            { name: 'in_stock', type: 'boolean', description: 'Only available', howToObtain: 'default true' },
            { name: 'tags', type: 'array', required: false, description: 'Tags' },
            { name: 'filters', type: 'object', description: 'Filters', defaultValue: '{}', validValues: ['a'], in: 'body' },
          ],
          responseExample: { any: 'thing' },
        },
      ]),
    );
    expect(tools[0]!.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search text (ask the user) Exemplo: red shoes' },
        limit: { type: 'number', description: 'Max results Exemplo: 10' },
        in_stock: { type: 'boolean', description: 'Only available (default true)' },
        tags: { type: 'array', description: 'Tags', items: {} },
        filters: { type: 'object', description: 'Filters' },
      },
      required: ['query', 'in_stock', 'filters'],
    });
  });

  it('does not register disabled routes', () => {
    const { tools } = toolkit.compile(card('Shop', [{ name: 'on' }, { name: 'off', enabled: false }]));
    expect(tools.map((tool) => tool.name)).toEqual(['on']);
  });

  it('collisions overwrite (routes of one card, across cards, built-ins) and are reported', () => {
    const first = card('First', [
      { name: 'Get Order', description: 'one' },
      { name: 'get-order', description: 'two' },
      { name: 'Summarize', description: 'mine' },
    ]);
    const second = card('Second', [{ name: 'GET ORDER', description: 'three' }]);
    const { tools, collisions } = toolkit.compile([first, second], { reservedNames: ['summarize', 'web_search'] });
    expect(tools.map((tool) => [tool.name, tool.description.split('\n')[0], tool.card.name])).toEqual([
      ['summarize', 'mine', 'First'],
      ['get_order', 'three', 'Second'],
    ]);
    expect(collisions).toEqual([
      { name: 'get_order', overwritten: 'First/Get Order', by: 'First/get-order' },
      { name: 'summarize', overwritten: 'built-in summarize', by: 'First/Summarize' },
      { name: 'get_order', overwritten: 'First/get-order', by: 'Second/GET ORDER' },
    ]);
    expect(tools.find((tool) => tool.name === 'get_order')!.routeName).toBe('GET ORDER');
  });

  it('toolDefinition shows the model name, description and schema only — no card config or credentials', () => {
    const { tools } = toolkit.compile(card('Shop', [{ name: 'Get Order', parameters: [{ name: 'id', description: 'Order id' }] }]));
    const definition = toolkit.toolDefinition(tools[0]!);
    expect(Object.keys(definition.function).sort()).toEqual(['description', 'name', 'parameters']);
    expect(definition).toMatchObject({ type: 'function', function: { name: 'get_order' } });
    const text = JSON.stringify(definition);
    for (const secret of ['sk-secret-token', 'tenant-secret', 'api.example.com', 'bearer']) expect(text).not.toContain(secret);
  });
});
