import { afterEach, describe, expect, it } from 'vitest';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { loadConfig } from '../config';
import { SqliteDatabase } from '../storage';
import { silentLogger } from '../internal/logger';
import { createFakeAnthropicUpstream, createFakeOpenAIUpstream, createTestServer, respond, type FakeUpstream } from '../test';
import type { ChatAdapter } from './chat-adapter';
import { createModels } from './create-models';
import { storedCompletionsSchema } from './stored-completions';
import type { ChatStreamPart } from './types';
import { modelsSchema } from './usage-store';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

type Providers = Record<string, { type: 'openai' | 'anthropic'; baseUrl: string; models?: string[] }>;

/** The models capability over these providers: the router (`ChatAdapter`) with `fathom.usage` and `fathom.models` beside it. */
function modelsFor(providers: Providers, env: Record<string, string> = {}) {
  const db = new SqliteDatabase({ schemas: [modelsSchema, storedCompletionsSchema] });
  const config = loadConfig({ FATHOM_PROVIDERS: JSON.stringify(providers), ...env });
  const models = createModels({ db, config, log: silentLogger });
  cleanups.push(async () => {
    await models.close();
    await db.close();
  });
  return models;
}

function adapterFor(providers: Providers, env: Record<string, string> = {}): ChatAdapter {
  return modelsFor(providers, env).router;
}

async function track(upstream: Promise<FakeUpstream>): Promise<FakeUpstream> {
  const value = await upstream;
  cleanups.push(() => value.close());
  return value;
}

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const out: ChatStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('ChatAdapter with an OpenAI-compatible provider', () => {
  it('completes, sends the upstream model name and records usage for the account', async () => {
    const upstream = await track(createFakeOpenAIUpstream([{ content: 'Hello there', usage: { prompt_tokens: 7, completion_tokens: 2 } }]));
    const { router: chat, usage } = modelsFor({ fake: { type: 'openai', baseUrl: upstream.baseUrl } });
    const result = await chat.complete(
      { model: 'fake/gpt-x', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, seed: 3 },
      { accountId: 'acct_1' },
    );
    expect(result).toMatchObject({
      model: 'fake/gpt-x',
      message: { role: 'assistant', content: 'Hello there' },
      finishReason: 'stop',
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
    expect(result.id).toMatch(/^chatcmpl-/);
    expect(upstream.requests[0]).toMatchObject({ model: 'gpt-x', temperature: 0.2, seed: 3 });
    expect((await usage.list('acct_1')).data).toEqual([
      {
        date: new Date().toISOString().slice(0, 10),
        model: 'fake/gpt-x',
        requests: 1,
        prompt_tokens: 7,
        completion_tokens: 2,
        total_tokens: 9,
      },
    ]);
  });

  it('streams text and tool-call deltas with the usage on finish', async () => {
    const upstream = await track(
      createFakeOpenAIUpstream([
        {
          content: 'Let me check. ',
          toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }],
          usage: { prompt_tokens: 5, completion_tokens: 4 },
        },
      ]),
    );
    const { router: chat, usage } = modelsFor({ fake: { type: 'openai', baseUrl: upstream.baseUrl } });
    const parts = await collect(
      chat.stream({ model: 'fake/m', messages: [{ role: 'user', content: 'weather?' }], tools: [weatherTool] }, { accountId: 'a' }),
    );
    expect(
      parts
        .filter((p) => p.type === 'text-delta')
        .map((p) => (p as any).text)
        .join(''),
    ).toBe('Let me check. ');
    const calls = parts.filter((p) => p.type === 'tool-call-delta') as any[];
    expect(calls[0]).toMatchObject({ index: 0, id: 'call_1', name: 'get_weather' });
    expect(calls.map((c) => c.argumentsDelta ?? '').join('')).toBe('{"city":"Paris"}');
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    });
    expect(upstream.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true }, tools: [weatherTool] });
    expect((await usage.list('a')).data[0]).toMatchObject({ requests: 1, prompt_tokens: 5, completion_tokens: 4 });
  });

  it('answers 400 listing the vendors for an unknown vendor or a malformed id', async () => {
    const chat = adapterFor({ fake: { type: 'openai', baseUrl: 'http://127.0.0.1:9' } });
    await expect(chat.complete({ model: 'nope/x', messages: [] })).rejects.toMatchObject({
      status: 400,
      param: 'model',
      message: expect.stringContaining("'fake'"),
    });
    expect(() => chat.stream({ model: 'no-slash', messages: [] })).toThrow(/<vendor>\/<model_name>/);
  });

  it('maps upstream 429 to 429 and 500 to 502 with the upstream message', async () => {
    const upstream = await track(
      createFakeOpenAIUpstream([{ error: { status: 429, message: 'slow down' } }, { error: { status: 500, message: 'boom' } }]),
    );
    const chat = adapterFor({ fake: { type: 'openai', baseUrl: upstream.baseUrl } });
    await expect(chat.complete({ model: 'fake/m', messages: [] })).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('slow down'),
    });
    await expect(collect(chat.stream({ model: 'fake/m', messages: [] }))).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('boom'),
    });
  });

  it('retries a refused connection once, then answers 502', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const chat = adapterFor({ gone: { type: 'openai', baseUrl: `http://127.0.0.1:${port}/v1` } });
    await expect(chat.complete({ model: 'gone/m', messages: [] })).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('retries once when the connection drops before any byte, never a second time', async () => {
    let connections = 0;
    const body = JSON.stringify({
      choices: [{ message: { role: 'assistant', content: 'second try' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    });
    const flaky = createServer((socket) => {
      connections++;
      socket.once('data', () => {
        if (connections % 2 === 1) socket.destroy();
        else
          socket.end(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
          );
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => flaky.close(() => resolve())));
    const chat = adapterFor({ flaky: { type: 'openai', baseUrl: `http://127.0.0.1:${(flaky.address() as { port: number }).port}/v1` } });
    const result = await chat.complete({ model: 'flaky/m', messages: [] });
    expect(result.message.content).toBe('second try');
    expect(connections).toBe(2);

    const always = createServer((socket) => {
      connections++;
      socket.once('data', () => socket.destroy());
    });
    await new Promise<void>((resolve) => always.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => always.close(() => resolve())));
    const broken = adapterFor({
      broken: { type: 'openai', baseUrl: `http://127.0.0.1:${(always.address() as { port: number }).port}/v1` },
    });
    connections = 0;
    await expect(broken.complete({ model: 'broken/m', messages: [] })).rejects.toMatchObject({ status: 502 });
    expect(connections).toBe(2);
  });

  it('reuses kept-alive upstream connections across sequential streams', async () => {
    let connections = 0;
    const sse =
      'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const server = createHttpServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(sse);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const chat = adapterFor({ keep: { type: 'openai', baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1` } });
    for (let i = 0; i < 6; i++) {
      const parts = await collect(chat.stream({ model: 'keep/m', messages: [] }));
      expect(parts.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    }
    // undici may open a second connection while the first is released; never one per stream.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('answers 504 when the upstream does not answer in time', async () => {
    const upstream = await track(createFakeOpenAIUpstream([{ hang: true }]));
    const chat = adapterFor({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }, { FATHOM_MODEL_TIMEOUT_MS: '200' });
    await expect(chat.complete({ model: 'fake/m', messages: [] })).rejects.toMatchObject({ status: 504 });
  });

  it('aborts the upstream request when the signal fires mid-stream', async () => {
    const upstream = await track(createFakeOpenAIUpstream([{ content: 'one two three four five six', delayMs: 100 }]));
    const chat = adapterFor({ fake: { type: 'openai', baseUrl: upstream.baseUrl } });
    const controller = new AbortController();
    const iterator = chat.stream({ model: 'fake/m', messages: [] }, { signal: controller.signal })[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toBeTruthy();
    await upstream.waitForClose();
    expect(upstream.closedEarly).toBe(1);
  });

  it('lists models from the upstream with the vendor prefix, or from config', async () => {
    const upstream = await track(createFakeOpenAIUpstream([], { models: ['a', 'b'] }));
    const { models } = modelsFor({
      fake: { type: 'openai', baseUrl: upstream.baseUrl },
      fixed: { type: 'openai', baseUrl: 'http://127.0.0.1:9', models: ['z'] },
    });
    const ids = (await models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['fake/a', 'fake/b', 'fixed/z']));
    await models.list();
    expect(upstream.server.requests.filter((r) => r.path === '/v1/models')).toHaveLength(1);
  });
});

describe('ChatAdapter with an Anthropic provider', () => {
  const history = [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: 'Weather in Paris?' },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'toolu_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool' as const, tool_call_id: 'toolu_1', content: '18C, sunny' },
  ];

  it('translates system, tools, tool calls and tool results, and the answer back', async () => {
    const upstream = await track(
      createFakeAnthropicUpstream([
        {
          toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
          usage: { prompt_tokens: 11, completion_tokens: 3 },
        },
        { content: 'Sunny, 18C.' },
      ]),
    );
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: upstream.baseUrl } });
    const first = await chat.complete(
      {
        model: 'claude/sonnet',
        messages: history.slice(0, 2),
        tools: [weatherTool],
        tool_choice: 'required',
        stop: 'END',
        extra: { parallel_tool_calls: false },
      },
      { accountId: 'b' },
    );
    expect(first).toMatchObject({
      finishReason: 'tool_calls',
      message: {
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      usage: { prompt_tokens: 11, completion_tokens: 3 },
    });
    expect(upstream.requests[0]).toEqual({
      model: 'sonnet',
      max_tokens: 4096,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
      stop_sequences: ['END'],
      tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: weatherTool.function.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    const second = await chat.complete({
      model: 'claude/sonnet',
      messages: history,
      tools: [weatherTool],
      max_tokens: 50,
      tool_choice: 'none',
    });
    expect(second).toMatchObject({ finishReason: 'stop', message: { content: 'Sunny, 18C.' } });
    expect(upstream.requests[1].max_tokens).toBe(50);
    expect(upstream.requests[1].tools).toHaveLength(1);
    expect(upstream.requests[1].tool_choice).toEqual({ type: 'none' });
    expect(upstream.requests[1].messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C, sunny' }] },
    ]);
    expect(upstream.server.requests[0]!.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('translates streaming events into text and tool-call parts with stop reason and usage', async () => {
    const upstream = await track(
      createFakeAnthropicUpstream([
        {
          content: 'Checking. ',
          toolCalls: [{ id: 'toolu_9', name: 'get_weather', arguments: { city: 'Oslo' } }],
          usage: { prompt_tokens: 20, completion_tokens: 6 },
        },
      ]),
    );
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: upstream.baseUrl } });
    const parts = await collect(chat.stream({ model: 'claude/sonnet', messages: history.slice(0, 2), tools: [weatherTool] }));
    expect(
      parts
        .filter((p) => p.type === 'text-delta')
        .map((p) => (p as any).text)
        .join(''),
    ).toBe('Checking. ');
    const calls = parts.filter((p) => p.type === 'tool-call-delta') as any[];
    expect(calls[0]).toMatchObject({ index: 0, id: 'toolu_9', name: 'get_weather' });
    expect(calls.map((c) => c.argumentsDelta ?? '').join('')).toBe('{"city":"Oslo"}');
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
    });
  });

  it('maps stop reasons: max_tokens -> length, refusal -> content_filter, end_turn -> stop', async () => {
    const upstream = await track(
      createFakeAnthropicUpstream([
        { content: 'cut', finishReason: 'length' },
        { content: 'no', finishReason: 'content_filter' },
        { content: 'fine' },
      ]),
    );
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: upstream.baseUrl } });
    const ask = () => chat.complete({ model: 'claude/x', messages: [{ role: 'user', content: 'hi' }] });
    expect((await ask()).finishReason).toBe('length');
    expect((await ask()).finishReason).toBe('content_filter');
    expect((await ask()).finishReason).toBe('stop');
  });

  it('translates image parts and merges consecutive tool results into one user turn', async () => {
    const upstream = await track(createFakeAnthropicUpstream([{ content: 'ok' }]));
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: upstream.baseUrl } });
    await chat.complete({
      model: 'claude/x',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'Two lookups.',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'a', arguments: '{}' } },
            { id: 't2', type: 'function', function: { name: 'b', arguments: '{"x":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'A' },
        { role: 'tool', tool_call_id: 't2', content: [{ type: 'text', text: 'B' }] },
      ],
    });
    expect(upstream.requests[0].messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Two lookups.' },
          { type: 'tool_use', id: 't1', name: 'a', input: {} },
          { type: 'tool_use', id: 't2', name: 'b', input: { x: 1 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'A' },
          { type: 'tool_result', tool_use_id: 't2', content: 'B' },
        ],
      },
    ]);
  });

  it('turns an error event in the stream into an error after the parts already sent', async () => {
    const server = await createTestServer({
      'POST /v1/messages': (_request, response) =>
        respond.sse(response, [
          { event: 'message_start', data: { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 0 } } } },
          { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
          { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } } },
          { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
        ]),
    });
    cleanups.push(() => server.close());
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: `${server.url}/v1` } });
    const seen: ChatStreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of chat.stream({ model: 'claude/x', messages: [{ role: 'user', content: 'hi' }] })) seen.push(part);
      })(),
    ).rejects.toMatchObject({ status: 502, message: expect.stringContaining('Overloaded') });
    expect(seen).toEqual([{ type: 'text-delta', text: 'Hel' }]);
    expect(server.requests).toHaveLength(1);
  });

  it('sends the parts before an error event of an OpenAI-compatible stream, then the error, when both come in one network chunk', async () => {
    const server = await createTestServer({
      'POST /v1/chat/completions': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // One write: the text delta and the error arrive in the same chunk.
        response.end(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hel' } }] })}\n\n` +
            `data: ${JSON.stringify({ error: { message: 'Overloaded' } })}\n\n`,
        );
      },
    });
    cleanups.push(() => server.close());
    const chat = adapterFor({ local: { type: 'openai', baseUrl: `${server.url}/v1` } });
    const seen: ChatStreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of chat.stream({ model: 'local/x', messages: [{ role: 'user', content: 'hi' }] })) seen.push(part);
      })(),
    ).rejects.toMatchObject({ status: 502, message: expect.stringContaining('Overloaded') });
    expect(seen).toEqual([{ type: 'text-delta', text: 'Hel' }]);
  });

  it('maps an Anthropic 429 to 429 with its message', async () => {
    const upstream = await track(
      createFakeAnthropicUpstream([{ error: { status: 429, message: 'Number of request tokens has exceeded your rate limit' } }]),
    );
    const chat = adapterFor({ claude: { type: 'anthropic', baseUrl: upstream.baseUrl } });
    await expect(chat.complete({ model: 'claude/x', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      status: 429,
      message: expect.stringContaining('rate limit'),
    });
  });
});
