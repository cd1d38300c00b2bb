import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EgressGuard } from '../egress';
import { createTestServer, respond, type RecordedRequest, type TestServer } from '../test';
import { WebhookToolkit } from './webhook-toolkit';
import type { WebhookCard, WebhookCardConfig, WebhookRoute } from './types';

let server: TestServer;
let guard: EgressGuard;
let toolkit: WebhookToolkit;

beforeAll(async () => {
  server = await createTestServer({ '*': (_request, response) => respond.json(response, 200, { ok: true }) });
  guard = new EgressGuard({ allow: ['127.0.0.1'] });
  toolkit = new WebhookToolkit({ egress: guard, sleep: async () => {} });
});
afterAll(async () => {
  await guard.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

function card(route: Partial<WebhookRoute>, config: Partial<WebhookCardConfig> = {}): WebhookCard {
  return {
    name: 'Test API',
    config: {
      baseUrl: `${server.url}/api/`,
      routes: [{ name: 'call', description: 'd', whenToUse: 'w', method: 'GET', path: '/items', ...route }],
      ...config,
    },
  };
}

async function call(route: Partial<WebhookRoute>, args: Record<string, unknown> = {}, config: Partial<WebhookCardConfig> = {}) {
  const output = await toolkit.execute(card(route, config), 'call', args);
  return { output, request: server.requests.at(-1) as RecordedRequest | undefined };
}

describe('URL and placements', () => {
  it('joins baseUrl (trailing slash removed) and path', async () => {
    const { request } = await call({ path: '/items/list' });
    expect(request!.url).toBe('/api/items/list');
  });

  it('substitutes path placeholders, percent-encoding values', async () => {
    const { request } = await call(
      {
        path: '/orders/{{id}}/lines/{{line}}',
        parameters: [
          { name: 'id', description: 'i' },
          { name: 'line', type: 'number', description: 'l' },
        ],
      },
      { id: '../../admin?x=1#y', line: 3 },
    );
    expect(request!.url).toBe('/api/orders/..%2F..%2Fadmin%3Fx%3D1%23y/lines/3');
    expect(request!.path).toBe('/api/orders/..%2F..%2Fadmin%3Fx%3D1%23y/lines/3');
  });

  it('missing path values answer with the missing parameters and send nothing', async () => {
    const { output, request } = await call({ path: '/orders/{{id}}/{{sku}}' }, { sku: null });
    expect(output).toBe('Error: Missing required path parameters: id, sku');
    expect(request).toBeUndefined();
  });

  it('substitutes queryParams values, drops unfilled ones, and never adds parameters by itself on GET', async () => {
    const { request } = await call(
      {
        path: '/search?fixed=1',
        queryParams: { q: '{{query}}', page: '{{page}}', lang: 'pt', opt: '{{optional}}' },
        parameters: [
          { name: 'query', description: 'q' },
          { name: 'page', type: 'number', description: 'p' },
          { name: 'optional', required: false, description: 'o' },
          { name: 'unplaced', description: 'u' },
        ],
      },
      { query: 'a&b=c d', page: 2, unplaced: 'secret' },
    );
    expect([...request!.query.entries()]).toEqual([
      ['fixed', '1'],
      ['q', 'a&b=c d'],
      ['page', '2'],
      ['lang', 'pt'],
    ]);
    expect(request!.body).toBe('');
  });

  it('DELETE discards unplaced parameters and sends no body', async () => {
    const { request } = await call({ method: 'DELETE', path: '/items/{{id}}' }, { id: 'x1', reason: 'spam' });
    expect(request!.method).toBe('DELETE');
    expect(request!.url).toBe('/api/items/x1');
    expect(request!.body).toBe('');
  });

  it('POST without bodyTemplate sends the parameters as sent by the model', async () => {
    const args = { name: 'Ana', age: 31, tags: ['a'], address: { city: 'Porto' } };
    const { request } = await call({ method: 'POST', path: '/people' }, args);
    expect(request!.method).toBe('POST');
    expect(request!.json).toEqual(args);
  });

  it.each(['PUT', 'PATCH'] as const)('%s with a bodyTemplate sends the rendered JSON, types kept', async (method) => {
    const { request } = await call(
      {
        method,
        path: '/people/{{id}}',
        bodyTemplate: '{"name": "{{name}}", "age": {{age}}, "vip": {{vip}}, "tags": {{tags}}, "meta": "{{meta}}", "nick": "{{nick}}"}',
        parameters: [
          { name: 'id', description: 'i' },
          { name: 'name', description: 'n' },
          { name: 'age', type: 'number', description: 'a' },
          { name: 'vip', type: 'boolean', description: 'v' },
          { name: 'tags', type: 'array', description: 't' },
          { name: 'meta', type: 'object', description: 'm' },
          { name: 'nick', required: false, description: 'k' },
        ],
      },
      { id: '7', name: 'Line "1"\nLine 2', age: 40, vip: true, tags: [1, 'two'], meta: { a: { b: [1] } } },
    );
    expect(request!.method).toBe(method);
    expect(request!.json).toEqual({ name: 'Line "1"\nLine 2', age: 40, vip: true, tags: [1, 'two'], meta: { a: { b: [1] } }, nick: null });
  });

  it('a body injection attempt stays inside its string', async () => {
    const { request } = await call(
      { method: 'POST', bodyTemplate: '{"comment": "{{comment}}", "admin": false}', parameters: [{ name: 'comment', description: 'c' }] },
      { comment: '", "admin": true, "x": "' },
    );
    expect(request!.json).toEqual({ comment: '", "admin": true, "x": "', admin: false });
  });

  it('an invalid template answers with the position and sends nothing', async () => {
    const { output, request } = await call(
      { method: 'POST', bodyTemplate: '{"a": {{count}}, }', parameters: [{ name: 'count', type: 'number', description: 'c' }] },
      { count: 1 },
    );
    expect(output).toMatch(/^Error: bodyTemplate produced invalid JSON at position 9 \(line 1, column 10\)$/);
    expect(request).toBeUndefined();
  });
});

describe('headers and authentication', () => {
  it('layers Content-Type/Accept, then defaultHeaders, then route headers, then auth', async () => {
    const { request } = await call(
      { headers: { 'x-layer': 'route', 'X-Route': 'r', accept: 'text/csv' } },
      {},
      {
        defaultHeaders: { 'X-Layer': 'default', 'X-Default': 'd', 'content-type': 'application/vnd+json', Authorization: 'from-default' },
        auth: { type: 'bearer', token: 'tok' },
      },
    );
    const headers = request!.headers;
    expect(headers['content-type']).toBe('application/vnd+json');
    expect(headers.accept).toBe('text/csv');
    expect(headers['x-layer']).toBe('route');
    expect(headers['x-default']).toBe('d');
    expect(headers['x-route']).toBe('r');
    expect(headers.authorization).toBe('Bearer tok');
  });

  it('sends application/json Content-Type and Accept by default', async () => {
    const { request } = await call({});
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.accept).toBe('application/json');
  });

  it('auth none sends nothing', async () => {
    const { request } = await call({}, {}, { auth: { type: 'none' } });
    expect(request!.headers.authorization).toBeUndefined();
  });

  it('auth bearer', async () => {
    const { request } = await call({}, {}, { auth: { type: 'bearer', token: 'abc123' } });
    expect(request!.headers.authorization).toBe('Bearer abc123');
  });

  it('auth api_key in a header by default', async () => {
    const { request } = await call({}, {}, { auth: { type: 'api_key', apiKey: 'k-1', apiKeyName: 'X-Api-Key' } });
    expect(request!.headers['x-api-key']).toBe('k-1');
    expect(request!.query.get('X-Api-Key')).toBeNull();
  });

  it('auth api_key in the query string', async () => {
    const { request } = await call(
      { queryParams: { q: 'x' } },
      {},
      { auth: { type: 'api_key', apiKey: 'k 2', apiKeyName: 'api_key', apiKeyLocation: 'query' } },
    );
    expect(request!.query.get('api_key')).toBe('k 2');
    expect(request!.query.get('q')).toBe('x');
    expect(request!.headers.api_key).toBeUndefined();
  });

  it('auth basic', async () => {
    const { request } = await call({}, {}, { auth: { type: 'basic', username: 'user', password: 'p:ss' } });
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('user:p:ss').toString('base64')}`);
  });

  it('auth custom_header', async () => {
    const { request } = await call({}, {}, { auth: { type: 'custom_header', customHeaderName: 'X-Signature', customHeaderValue: 'sig' } });
    expect(request!.headers['x-signature']).toBe('sig');
  });

  it('refuses CR/LF in a header value and sends nothing', async () => {
    const { output, request } = await call({ headers: { 'X-Evil': 'a\r\nX-Injected: 1' } });
    expect(output).toBe("Error: Header 'X-Evil' contains a line break");
    expect(request).toBeUndefined();
    const viaAuth = await call({}, {}, { auth: { type: 'bearer', token: 'x\nHost: evil' } });
    expect(viaAuth.output).toBe("Error: Header 'Authorization' contains a line break");
    const badName = await call({ headers: { 'X Bad\r\nName': 'v' } });
    expect(badName.output).toBe("Error: Header name 'X Bad  Name' is not valid");
    expect(server.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('pretty-prints JSON', async () => {
    server.route('GET', '/api/json', (_request, response) => respond.json(response, 200, { order: { id: 5, items: [1, 2] } }));
    const { output } = await call({ path: '/json' });
    expect(output).toBe(JSON.stringify({ order: { id: 5, items: [1, 2] } }, null, 2));
  });

  it('returns non-JSON text cut to 5,000 characters', async () => {
    server.route('GET', '/api/text', (_request, response) => respond.text(response, 200, `${'a'.repeat(4_999)}bc${'z'.repeat(3_000)}`));
    const { output } = await call({ path: '/text' });
    expect(output).toHaveLength(5_000);
    expect(output.endsWith('ab')).toBe(true);
  });

  it('status >= 400 -> Error: HTTP <status> - <body cut to 500>', async () => {
    server.route('GET', '/api/fail', (_request, response) => respond.text(response, 500, `boom ${'x'.repeat(1_000)}`));
    const { output } = await call({ path: '/fail' });
    expect(output).toBe(`Error: HTTP 500 - boom ${'x'.repeat(495)}`);
    expect(server.requests).toHaveLength(1);
  });

  it('responseMapping returns only the declared fields that match', async () => {
    server.route('GET', '/api/order', (_request, response) =>
      respond.json(response, 200, { order: { id: 'o-1', total: 9.5 }, items: [{ sku: 'A1' }, { sku: 'B2' }], noise: 'x' }),
    );
    const { output } = await call({
      path: '/order',
      responseMapping: { orderId: '$.order.id', firstSku: '$.items[0].sku', skus: '$.items[*].sku', missing: '$.nope' },
    });
    expect(JSON.parse(output)).toEqual({ orderId: 'o-1', firstSku: 'A1', skus: ['A1', 'B2'] });
    expect(output).toBe(JSON.stringify(JSON.parse(output), null, 2));
  });

  it('responseMapping with no matching path returns the full response', async () => {
    server.route('GET', '/api/order2', (_request, response) => respond.json(response, 200, { a: 1 }));
    const { output } = await call({ path: '/order2', responseMapping: { x: '$.nothing.here' } });
    expect(JSON.parse(output)).toEqual({ a: 1 });
  });
});

describe('exact error texts', () => {
  it('unknown route, with the available routes', async () => {
    const target = card({ name: 'Get Order' });
    target.config.routes!.push(
      { name: 'List Orders', description: 'd', whenToUse: 'w', path: '/' },
      { name: 'Old', description: 'd', whenToUse: 'w', path: '/', enabled: false },
    );
    expect(await toolkit.execute(target, 'nope', {})).toBe("Error: Route 'nope' not found. Available routes: Get Order, List Orders");
  });

  it('disabled route', async () => {
    expect(await toolkit.execute(card({ enabled: false }), 'call', {})).toBe("Error: Route 'call' is disabled");
  });

  it('no baseUrl', async () => {
    expect(await toolkit.execute(card({}, { baseUrl: undefined }), 'call', {})).toBe('Error: Webhook base URL not configured');
    expect(await toolkit.execute(card({}, { baseUrl: '  ' }), 'call', {})).toBe('Error: Webhook base URL not configured');
  });

  it('accepts the sanitized tool name as well as the route name', async () => {
    const target = card({ name: 'Buscar Pedido', path: '/by-name' });
    await toolkit.execute(target, 'buscar_pedido', {});
    expect(server.requests.at(-1)!.url).toBe('/api/by-name');
  });

  it('egress refusal -> Error: destination not allowed, nothing sent', async () => {
    const strict = new WebhookToolkit({ egress: new EgressGuard({ allow: [] }), sleep: async () => {} });
    expect(await strict.execute(card({}), 'call', {})).toBe('Error: destination not allowed');
    expect(await strict.execute(card({}, { baseUrl: 'http://169.254.169.254/latest' }), 'call', {})).toBe('Error: destination not allowed');
    expect(server.requests).toHaveLength(0);
  });

  it('never throws, whatever the input', async () => {
    expect(await toolkit.execute({ name: 'x' } as unknown as WebhookCard, 'a', 'not json')).toBe(
      "Error: Route 'a' not found. Available routes: (none)",
    );
    const fromText = await toolkit.execute(card({ path: '/items/{{id}}' }), 'call', '{"id": "9"}');
    expect(fromText).toBe(JSON.stringify({ ok: true }, null, 2));
  });
});

describe('transport', () => {
  it('never uses the global fetch, and concurrent calls each get their own answer', async () => {
    server.route('GET', '/api/echo', (request, response) => respond.json(response, 200, { id: request.query.get('id') }));
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const target = card({ path: '/echo', queryParams: { id: '{{id}}' } });
    const outputs = await Promise.all(Array.from({ length: 20 }, (_, index) => toolkit.execute(target, 'call', { id: `n${index}` })));
    expect(outputs.map((output) => JSON.parse(output).id)).toEqual(Array.from({ length: 20 }, (_, index) => `n${index}`));
    expect(fetchSpy).not.toHaveBeenCalled();
    fetchSpy.mockRestore();
  });
});
