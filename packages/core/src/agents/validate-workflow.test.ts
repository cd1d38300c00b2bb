import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
import { checkWorkflow } from './validate-workflow';
import { WORKFLOW_LIMITS } from './workflow-limits';

function workflow(overrides: { card?: any; nodes?: any[]; edges?: any[] } = {}): any {
  const card = overrides.card ?? {
    name: 'Orders API',
    config: {
      baseUrl: 'https://api.example.com',
      routes: [
        {
          name: 'get_order',
          description: 'Fetch an order.',
          whenToUse: 'When the user asks about an order.',
          method: 'GET',
          path: '/orders/{{order_id}}',
          parameters: [{ name: 'order_id', description: 'The order id.', required: true }],
        },
      ],
    },
  };
  return {
    nodes: overrides.nodes ?? [
      { id: 'start', type: 'start', data: { label: 'Start', variables: [] } },
      { id: 'agent', type: 'agent', data: { name: 'Helper', model: 'fake/model', system_prompt: 'Help.' } },
      { id: 'orders', type: 'webhook', data: card },
      { id: 'end', type: 'end', data: { label: 'End', status: 'success' } },
    ],
    edges: overrides.edges ?? [
      { id: 'e1', source: 'start', target: 'agent' },
      { id: 'e2', source: 'agent', target: 'end' },
      { id: 'e3', source: 'orders', target: 'agent', targetHandle: 'slot-0' },
    ],
  };
}

function failure(input: unknown): InvalidRequestError {
  try {
    checkWorkflow(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return error as InvalidRequestError;
  }
  throw new Error('expected the workflow to be refused');
}

const route = (changes: Record<string, unknown>) => ({ ...workflow().nodes[2].data.config.routes[0], ...changes });
const cardWith = (routes: unknown[], extra: Record<string, unknown> = {}) =>
  workflow({ card: { name: 'Orders API', config: { baseUrl: 'https://api.example.com', routes, ...extra } } });

describe('checkWorkflow: the declaration, then the rules a schema cannot say', () => {
  it('accepts a start -> agent -> end workflow with a card in slot-0 and keeps extra editor keys', () => {
    const input = workflow();
    input.nodes[0].position = { x: 1, y: 2 };
    expect(checkWorkflow(input)).toBe(input);
  });

  it('refuses a card lacking both baseUrl and routes with webhook_no_config naming the card', () => {
    const error = failure(workflow({ card: { name: 'Empty card', config: {} } }));
    expect(error.code).toBe('webhook_no_config');
    expect(error.message).toContain("'Empty card'");
    expect(error.message).toContain("'orders'");
  });

  it('accepts a card with routes but no baseUrl (the call answers "base URL not configured" at run time)', () => {
    const input = workflow();
    delete input.nodes[2].data.config.baseUrl;
    expect(() => checkWorkflow(input)).not.toThrow();
  });

  it.each(['name', 'description', 'whenToUse', 'path'])('names a route missing %s, or holding only white space', (field) => {
    const missing = failure(cardWith([route({ [field]: undefined })]));
    expect(missing).toMatchObject({ code: 'missing_required_parameter', param: `workflow.nodes[2].data.config.routes[0].${field}` });
    expect(missing.message).toBe(`Missing required parameter: 'workflow.nodes[2].data.config.routes[0].${field}'.`);
    const blank = failure(cardWith([route({ [field]: '  ' })]));
    expect(blank).toMatchObject({ code: 'empty_string', param: `workflow.nodes[2].data.config.routes[0].${field}` });
    expect(blank.message).toBe(`Invalid 'workflow.nodes[2].data.config.routes[0].${field}': expected a non-blank string.`);
  });

  it.each([
    ['name', 'invalid_value'],
    ['description', 'empty_string'],
  ])('names a parameter with an empty %s', (field, code) => {
    const parameter: Record<string, unknown> = { name: 'order_id', description: 'The order id.', [field]: '' };
    const error = failure(cardWith([route({ parameters: [parameter] })]));
    expect(error).toMatchObject({ code, param: `workflow.nodes[2].data.config.routes[0].parameters[0].${field}` });
  });

  it('refuses route names that collide after sanitization, across cards', () => {
    const second = {
      id: 'crm',
      type: 'webhook',
      data: {
        name: 'CRM',
        config: { baseUrl: 'https://crm.example.com', routes: [route({ name: 'Get-Order', path: '/x/{{order_id}}' })] },
      },
    };
    const input = workflow();
    input.nodes.push(second);
    input.edges.push({ id: 'e4', source: 'crm', target: 'agent', targetHandle: 'slot-1' });
    const error = failure(input);
    expect(error.code).toBe('duplicate_route_name');
    expect(error.message).toContain("'Get-Order'");
    expect(error.message).toContain("'get_order'");
  });

  it('refuses a path placeholder with no declared parameter', () => {
    const error = failure(cardWith([route({ path: '/orders/{{order_id}}/lines/{{line}}' })]));
    expect(error.code).toBe('path_parameter_undeclared');
    expect(error.message).toContain('{{line}}');
  });

  it('refuses a path placeholder whose parameter is optional', () => {
    const error = failure(cardWith([route({ parameters: [{ name: 'order_id', description: 'id', required: false }] })]));
    expect(error.code).toBe('path_parameter_not_required');
    expect(error.message).toContain("'order_id'");
  });

  it('refuses unknown node types, naming the type and the types there are', () => {
    const input = workflow();
    input.nodes.push({ id: 'mystery', type: 'loop', data: {} });
    expect(failure(input)).toMatchObject({
      code: 'invalid_value',
      param: 'workflow.nodes[4].type',
      message: "Invalid value for 'workflow.nodes[4].type': 'loop'. Supported values are: 'start', 'agent', 'webhook', 'end'.",
    });
  });

  it('refuses edges to unknown nodes', () => {
    const input = workflow();
    input.edges.push({ id: 'e9', source: 'agent', target: 'ghost' });
    const error = failure(input);
    expect(error.code).toBe('edge_unknown_node');
    expect(error.message).toContain("'ghost'");
    expect(error.message).toContain("'e9'");
  });

  it('refuses a workflow without a start node or without an end node', () => {
    const noStart = workflow();
    noStart.nodes = noStart.nodes.filter((node: any) => node.type !== 'start');
    noStart.edges = noStart.edges.filter((edge: any) => edge.source !== 'start');
    expect(failure(noStart).code).toBe('missing_start_node');
    const noEnd = workflow();
    noEnd.nodes = noEnd.nodes.filter((node: any) => node.type !== 'end');
    noEnd.edges = noEnd.edges.filter((edge: any) => edge.target !== 'end');
    expect(failure(noEnd).code).toBe('missing_end_node');
  });

  it('refuses an end that the flow cannot reach, and cycles', () => {
    const unreachable = workflow({ edges: [{ id: 'e1', source: 'start', target: 'agent' }] });
    expect(failure(unreachable).code).toBe('end_unreachable');
    const input = workflow();
    input.nodes.push({ id: 'agent2', type: 'agent', data: { name: 'Two', model: 'fake/model' } });
    input.edges.push({ id: 'c1', source: 'agent', target: 'agent2' }, { id: 'c2', source: 'agent2', target: 'agent' });
    expect(failure(input).code).toBe('workflow_cycle');
  });

  it('refuses a card wired into the flow instead of an agent slot', () => {
    const error = failure(workflow({ edges: [...workflow().edges.slice(0, 2), { id: 'e3', source: 'orders', target: 'agent' }] }));
    expect(error.code).toBe('invalid_webhook_edge');
    expect(error.message).toContain("'orders'");
  });

  it("reports a node's data that does not match the declaration with OpenAI's codes and the field path", () => {
    const badMethod = failure(cardWith([route({ method: 'FETCH' })]));
    expect(badMethod).toMatchObject({ code: 'invalid_value', param: 'workflow.nodes[2].data.config.routes[0].method' });
    expect(badMethod.message).toContain("'GET', 'POST', 'PUT', 'PATCH', 'DELETE'");
    const noModel = workflow();
    delete noModel.nodes[1].data.model;
    expect(failure(noModel)).toMatchObject({ code: 'missing_required_parameter', param: 'workflow.nodes[1].data.model' });
    expect(failure({ nodes: [] }).message).toContain('workflow.edges');
  });

  it('names the missing field of a card auth type', () => {
    const error = failure(cardWith([route({})], { auth: { type: 'api_key', apiKey: 'k' } }));
    expect(error).toMatchObject({ code: 'missing_required_parameter', param: 'workflow.nodes[2].data.config.auth.apiKeyName' });
    expect(() => checkWorkflow(cardWith([route({})], { auth: { type: 'basic', username: 'u', password: 'p' } }))).not.toThrow();
  });

  it('reads path placeholders as the renderer does, so a path of braces is checked in one pass', () => {
    // The earlier pattern let a name hold '{' and took seconds on 40,000 braces; the renderer's cannot.
    expect(() => checkWorkflow(cardWith([route({ path: '{'.repeat(200_000) })]))).not.toThrow();
    expect(failure(cardWith([route({ path: '/a/{{ order_id }}/{{{{x}}' })])).message).toContain("'{{x}}'");
  });

  it('refuses a parameters field that is not a list with a 400 rather than failing inside the check', () => {
    const error = failure(cardWith([route({ parameters: 'order_id' })]));
    expect(error.code).toBe('invalid_type');
    expect(error.param).toBe('workflow.nodes[2].data.config.routes[0].parameters');
  });
});

describe('checkWorkflow: size limits', () => {
  const agents = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: `a${i}`, type: 'agent', data: { name: 'A', model: 'm/m' } }));

  it('counts nodes, edges, routes of all cards and parameters of a route before any other check', () => {
    const nodes = failure({ nodes: agents(WORKFLOW_LIMITS.nodes + 1), edges: 'not even a list' });
    expect(nodes).toMatchObject({ code: 'array_above_max_length', param: 'workflow.nodes' });
    const edges = failure({ nodes: [], edges: Array.from({ length: WORKFLOW_LIMITS.edges + 1 }, () => ({})) });
    expect(edges).toMatchObject({ code: 'array_above_max_length', param: 'workflow.edges' });
    const routes = (count: number) => Array.from({ length: count }, (_, i) => route({ name: `r${i}`, path: '/x', parameters: [] }));
    const twoCards = workflow();
    twoCards.nodes[2].data.config.routes = routes(WORKFLOW_LIMITS.routes);
    expect(() => checkWorkflow(twoCards)).not.toThrow();
    twoCards.nodes.push({
      id: 'more',
      type: 'webhook',
      data: { name: 'More', config: { baseUrl: 'https://b.example.com', routes: routes(1) } },
    });
    expect(failure(twoCards)).toMatchObject({ code: 'array_above_max_length', param: 'workflow.nodes[4].data.config.routes' });
    const parameters = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `p${i}`, description: 'd' }));
    expect(() => checkWorkflow(cardWith([route({ parameters: [...route({}).parameters, ...parameters(99)] })]))).not.toThrow();
    expect(failure(cardWith([route({}), route({ name: 'other', parameters: parameters(101) })]))).toMatchObject({
      code: 'array_above_max_length',
      param: 'workflow.nodes[2].data.config.routes[1].parameters',
    });
  });

  it('refuses a workflow whose agents together see too many tool definitions, counting a card once per agent that sees it', () => {
    // One card of about 80,000 characters of definitions: 25 agents in a pipeline see it 25 times.
    const card = { name: 'Big', config: { baseUrl: 'https://api.example.com', routes: [route({ description: 'x'.repeat(80_000) })] } };
    const chain = (count: number) => {
      const input = workflow({ card });
      const ids = agents(count).map((node) => node.id);
      input.nodes.splice(1, 1, ...agents(count));
      input.edges = [
        { id: 'in', source: 'start', target: ids[0] },
        ...ids.slice(1).map((id, i) => ({ id: `f${i}`, source: ids[i], target: id })),
        { id: 'out', source: ids.at(-1), target: 'end' },
        { id: 'slot', source: 'orders', target: ids[0], targetHandle: 'slot-0' },
      ];
      return input;
    };
    expect(() => checkWorkflow(chain(24))).not.toThrow();
    const error = failure(chain(25));
    expect(error).toMatchObject({ code: 'workflow_too_large', param: 'workflow.nodes' });
    expect(error.message).toMatch(/see 2,00\d,\d{3} characters of tool definitions together, more than the 2,000,000 allowed/);
  });
});
