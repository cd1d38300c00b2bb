import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../src/route';
import { routeTables } from '../src/route-tables';
import { json, startFathom, type TestFathom } from './harness';

/**
 * Hostile input on every route the server registers (enumerated from the route tables, so a new
 * route is fuzzed without touching this file): malformed, deeply nested, oversized and mistyped
 * bodies, bad ids and bad query strings. Every answer must be a 4xx in OpenAI's error shape, and the
 * server must still serve afterwards.
 */

const ROUTES = routeTables('all');
const FAKE_ID = 'zz_does_not_exist';

/** A concrete URL for a route path: every `:param` gets `id`, a wildcard gets a two-part model id. */
const urlFor = (route: Route, id = FAKE_ID) => route.path.replace(/:[A-Za-z_]+/g, id).replace('*', `vendor/${id}`);
const hasParams = (route: Route) => /:[A-Za-z_]+|\*/.test(route.path);
const label = (route: Route) => `${route.method} ${route.path}`;

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Bodies no route may accept, sent as application/json. */
const HOSTILE_JSON_BODIES: Array<[string, string]> = [
  ['malformed JSON', '{"name": "x", '],
  ['a 50,000-deep array', nested(50_000)],
  ['a 50,000-deep object', `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`],
  ['a deep value inside a valid object', `{"name": "x", "model": "v/m", "input": ${nested(10_000)}}`],
  ['an array', '[]'],
  ['a string', '"text"'],
  ['a number', '123'],
  ['null', 'null'],
  ['prototype pollution', '{"__proto__": {"admin": true}, "name": "x"}'],
  [
    'every field of the wrong type',
    JSON.stringify({
      model: 5,
      messages: 'x',
      input: { a: 1 },
      name: [],
      instructions: 7,
      file_id: 3,
      file_ids: {},
      files: 'x',
      query: 7,
      thread: 1,
      assistant_id: {},
      workflow: 'x',
      message: [],
      variables: 'x',
      attributes: 'x',
      tool_outputs: 'x',
      websites: 5,
      amount: 'x',
      metadata: 'x',
      tools: 'x',
      limit: 'x',
      stream: 'yes',
    }),
  ],
];

/** Odd but well-formed bodies: a route may accept them, but never fail on them. */
const ODD_JSON_BODIES: Array<[string, string]> = [
  ['a lone surrogate and control characters', '{"name": "\\ud800\\u0000\\u001b[31m", "model": "\\ud800/x", "query": "\\udfff"}'],
  ['huge numbers', '{"limit": 1e400, "amount": -1e400, "max_num_results": 1e21, "temperature": 1e308}'],
  ['unknown fields only', '{"zz_unknown": {"deep": [1, 2, {"x": null}]}}'],
];

const BAD_IDS = ['x'.repeat(5_000), '%00', '..%2F..%2Fetc%2Fpasswd', '%F0%9F%92%A9', "'%20OR%201=1%20--", '%E0%A4%A', '%'];

const BAD_QUERY = '?limit=abc&order=sideways&after=%ZZ&before=&limit=-1&include[]=%00&filter=%E0%A4%A';

interface Answer {
  status: number;
  body: unknown;
}

describe('fuzz: hostile input on every registered route', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  const keyFor = (route: Route) => (route.auth === 'admin' ? server.adminKey : server.apiKey);

  async function send(
    route: Route,
    url: string,
    init: { body?: string; contentType?: string; apiKey?: string | null } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    const key = init.apiKey === undefined ? keyFor(route) : init.apiKey;
    if (key) headers.authorization = `Bearer ${key}`;
    if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    const response = await fetch(`${server.url}${url}`, {
      method: route.method,
      headers,
      body: route.method === 'GET' ? undefined : init.body,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body };
  }

  /** Collects what broke the contract instead of stopping at the first, so one run lists them all. */
  function check(problems: string[], what: string, answer: Answer, expected: (status: number) => boolean) {
    const error = (answer.body as { error?: Record<string, unknown> } | null)?.error;
    const shaped =
      !!error &&
      typeof error.message === 'string' &&
      typeof error.type === 'string' &&
      (error.param === null || typeof error.param === 'string') &&
      'code' in error;
    if (!expected(answer.status) || !shaped) {
      problems.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
  }
  const is4xx = (status: number) => status >= 400 && status < 500;

  beforeAll(async () => {
    upstream = await createFakeOpenAIUpstream(() => ({ content: 'fine' }));
    server = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ vendor: { type: 'openai', baseUrl: upstream.baseUrl } }),
        OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
      },
    });
  });
  afterAll(async () => {
    await server?.close({ keepData: false });
    await upstream?.close();
  });

  it('enumerates the routes from the route tables', () => {
    expect(ROUTES.length).toBeGreaterThan(60);
    expect(ROUTES.map(label)).toEqual(expect.arrayContaining(['POST /v1/files', 'POST /v1/chat/completions', 'POST /v1/agents/:id/run']));
  });

  it('answers 401 to a caller without a valid key on every route, whatever the body', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter((candidate) => candidate.auth !== 'none')) {
      for (const apiKey of [null, 'wrong-key']) {
        const answer = await send(route, urlFor(route), { body: nested(50_000), apiKey });
        check(problems, `${label(route)} key=${apiKey}`, answer, (status) => status === 401);
      }
    }
    expect(problems).toEqual([]);
  });

  it('answers 4xx to malformed, deep, mistyped and wrongly labelled bodies on every route that takes a body (and never 5xx to odd ones)', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter((candidate) => candidate.method !== 'GET')) {
      for (const [name, body] of HOSTILE_JSON_BODIES) {
        check(problems, `${label(route)} with ${name}`, await send(route, urlFor(route), { body }), is4xx);
      }
      for (const [name, body] of ODD_JSON_BODIES) {
        const answer = await send(route, urlFor(route), { body });
        if (answer.status >= 400) check(problems, `${label(route)} with ${name}`, answer, is4xx);
      }
      for (const [name, body, contentType] of [
        ['a text/plain body', 'name=x', 'text/plain'],
        ['an unknown media type', '<x/>', 'application/xml'],
        ['multipart without a boundary', '--x\r\n', 'multipart/form-data'],
        [
          'a truncated multipart body',
          '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhel',
          'multipart/form-data; boundary=XX',
        ],
      ] as const) {
        check(problems, `${label(route)} with ${name}`, await send(route, urlFor(route), { body, contentType }), is4xx);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('answers 413 in the error shape to a body one byte over the limit of its route', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter((candidate) => candidate.method === 'POST')) {
      const limit = route.bodyLimit!;
      const body = `{"name":"${'x'.repeat(limit - 10)}"}`;
      expect(body.length).toBe(limit + 1);
      check(problems, `${label(route)} (${limit} bytes)`, await send(route, urlFor(route), { body }), (status) => status === 413);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('answers 4xx to bad ids on every route with a path parameter', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter(hasParams)) {
      for (const id of BAD_IDS) {
        const answer = await send(route, urlFor(route, id), route.method === 'GET' ? {} : { body: '{}' });
        check(problems, `${label(route)} id=${id.slice(0, 30)}`, answer, is4xx);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('never fails on a bad query string, and every paginated list refuses it with 400', async () => {
    const problems: string[] = [];
    for (const route of ROUTES.filter((candidate) => candidate.method === 'GET')) {
      const plain = await send(route, urlFor(route));
      const paginated = plain.status === 200 && typeof plain.body === 'object' && plain.body !== null && 'has_more' in plain.body;
      const answer = await send(route, `${urlFor(route)}${BAD_QUERY}`);
      if (paginated) check(problems, `${label(route)}${BAD_QUERY}`, answer, (status) => status === 400);
      else if (answer.status >= 400 || plain.status >= 400) check(problems, `${label(route)}${BAD_QUERY}`, answer, is4xx);
      if (answer.status >= 500 || plain.status >= 500) problems.push(`${label(route)}: ${plain.status} then ${answer.status}`);
    }
    expect(problems).toEqual([]);
  });

  /** Hostile variants of every input item type; `at` is where the item sits (`input[0]`, `items[0]`). */
  const hostileItems = (at: string): Array<[string, unknown, string]> => {
    const over = (max: number) => 'x'.repeat(max + 1);
    const parts = (text: string) => [{ type: 'input_text', text }];
    return [
      ['message: unknown role', { type: 'message', role: 'robot', content: 'x' }, `${at}.role`],
      ['message: content of the wrong type', { type: 'message', role: 'user', content: 5 }, `${at}.content`],
      ['message: unknown part type', { role: 'user', content: [{ type: 'input_video' }] }, `${at}.content[0].type`],
      ['message: text over the cap', { role: 'user', content: over(256_000) }, `${at}.content`],
      [
        'message: parts over the cap together',
        { role: 'user', content: [...parts(over(128_000)), ...parts(over(128_000))] },
        `${at}.content`,
      ],
      [
        'message: annotations over the cap',
        { role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [{ type: 'x', note: over(256_000) }] }] },
        `${at}.content[0].annotations`,
      ],
      [
        'message: input_file naming no file',
        { role: 'user', content: [{ type: 'input_file', file_id: 'file-nothing' }] },
        `${at}.content[0].file_id`,
      ],
      [
        'message: input_file by URL',
        { role: 'user', content: [{ type: 'input_file', file_url: 'http://169.254.169.254/' }] },
        `${at}.content[0].file_url`,
      ],
      ['message: input_image without a source', { role: 'user', content: [{ type: 'input_image' }] }, `${at}.content[0].image_url`],
      ['message: id over the cap', { role: 'user', id: over(256), content: 'x' }, `${at}.id`],
      ['function_call: no call_id', { type: 'function_call', name: 'f', arguments: '{}' }, `${at}.call_id`],
      ['function_call: name of the wrong type', { type: 'function_call', call_id: 'c', name: 7 }, `${at}.name`],
      [
        'function_call: arguments over the cap',
        { type: 'function_call', call_id: 'c', name: 'f', arguments: over(256_000) },
        `${at}.arguments`,
      ],
      ['function_call: arguments as an object', { type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 1 } }, `${at}.arguments`],
      ['function_call_output: output of the wrong type', { type: 'function_call_output', call_id: 'c', output: 5 }, `${at}.output`],
      ['function_call_output: output over the cap', { type: 'function_call_output', call_id: 'c', output: over(256_000) }, `${at}.output`],
      [
        'function_call_output: parts over the cap',
        { type: 'function_call_output', call_id: 'c', output: parts(over(256_000)) },
        `${at}.output`,
      ],
      ['file_search_call: no id', { type: 'file_search_call', queries: [] }, `${at}.id`],
      ['file_search_call: queries not strings', { type: 'file_search_call', id: 'fs_1', queries: [{ q: 1 }] }, `${at}.queries`],
      [
        'file_search_call: results over the cap',
        { type: 'file_search_call', id: 'fs_1', queries: [], results: [{ text: over(256_000) }] },
        `${at}.results`,
      ],
      ['file_search_call: unknown status', { type: 'file_search_call', id: 'fs_1', queries: [], status: 'x'.repeat(100) }, `${at}.status`],
      ['reasoning: no id', { type: 'reasoning', summary: [] }, `${at}.id`],
      [
        'reasoning: summary over the cap',
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: over(256_000) }] },
        `${at}.summary`,
      ],
      [
        'reasoning: content over the cap',
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: over(256_000) }] },
        `${at}.content`,
      ],
      [
        'reasoning: encrypted_content over the cap',
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: over(256_000) },
        `${at}.encrypted_content`,
      ],
      [
        'reasoning: encrypted_content of the wrong type',
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 5 },
        `${at}.encrypted_content`,
      ],
      ['item_reference: unknown id', { type: 'item_reference', id: 'msg_nothing' }, `${at}.id`],
      ['item_reference: bare unknown id', { id: 'msg_nothing' }, `${at}.id`],
      ['item_reference: id over the cap', { type: 'item_reference', id: over(256) }, `${at}.id`],
      ['item_reference: id of the wrong type', { type: 'item_reference', id: 5 }, `${at}.id`],
      ['unknown item type', { type: 'computer_call', id: 'cc_1' }, `${at}.type`],
    ];
  };

  it('answers 4xx naming the field to hostile items of every input item type, on responses and conversations', async () => {
    const problems: string[] = [];
    const conversation = await server.client.conversations.create({});
    const targets: Array<[string, string, (item: unknown) => unknown, string]> = [
      ['POST', '/v1/responses', (item) => ({ model: 'vendor/m', input: [item] }), 'input[0]'],
      ['POST', '/v1/responses', (item) => ({ model: 'vendor/m', input: [item], background: true }), 'input[0]'],
      ['POST', '/v1/conversations', (item) => ({ items: [item] }), 'items[0]'],
      ['POST', `/v1/conversations/${conversation.id}/items`, (item) => ({ items: [item] }), 'items[0]'],
    ];
    for (const [method, path, wrap, at] of targets) {
      const route = ROUTES.find((candidate) => candidate.method === method && urlFor(candidate, conversation.id) === path)!;
      for (const [name, item, param] of hostileItems(at)) {
        const answer = await send(route, path, { body: JSON.stringify(wrap(item)) });
        check(problems, `${path} ${name}`, answer, is4xx);
        const error = (answer.body as { error?: { param?: string } }).error;
        if (error?.param !== param) problems.push(`${path} ${name}: param ${error?.param} instead of ${param}`);
      }
    }
    expect(problems).toEqual([]);
    expect(upstream.requests.length).toBe(0);
  }, 120_000);

  it('refuses item_reference fan-out (thousands of references to a large stored item) and stores nothing', async () => {
    const conversation = await server.client.conversations.create({});
    const big = { type: 'function_call_output', call_id: 'call_big', output: 'y'.repeat(256_000) };
    const added = await server.request(`/v1/conversations/${conversation.id}/items`, { method: 'POST', json: { items: [big] } });
    const id = (await json<{ data: Array<{ id: string }> }>(added)).data[0]!.id;
    const route = ROUTES.find((candidate) => candidate.method === 'POST' && candidate.path === '/v1/responses')!;
    const input = Array.from({ length: 2000 }, () => ({ type: 'item_reference', id }));
    const problems: string[] = [];
    for (const extra of [{}, { background: true }, { conversation: conversation.id }, { stream: true }]) {
      const answer = await send(route, '/v1/responses', { body: JSON.stringify({ model: 'vendor/m', input, ...extra }) });
      check(problems, `fan-out ${JSON.stringify(extra)}`, answer, (status) => status === 400);
      expect((answer.body as { error: { code: string } }).error.code).toBe('context_too_large');
    }
    expect(problems).toEqual([]);
    const stored = await server.fathom.database.get<{ count: number }>('SELECT COUNT(*) AS count FROM responses');
    expect(Number(stored!.count)).toBe(0);
  });

  it('still serves afterwards', async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const store = await server.client.vectorStores.create({ name: 'after the fuzz' });
    expect((await server.client.vectorStores.retrieve(store.id)).name).toBe('after the fuzz');
    const completion = await server.client.chat.completions.create({ model: 'vendor/m', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('fine');
  });
});
