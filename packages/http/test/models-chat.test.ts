import {
  createFakeAnthropicUpstream,
  createFakeOpenAIUpstream,
  createTestServer,
  type FakeUpstream,
  fakeTokenLogprob,
} from '@fathom/core/test';
import { ChatCompletionChunk, describeSchemaIssues, type SchemaIssue } from '@fathom/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../src/validators';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

const isChunk = answers.compile(ChatCompletionChunk);

/**
 * The `data:` lines of a streamed completion that are not what the route declares as its `schema.stream`
 * (`ChatCompletionChunk`, /v1/openapi.json), each with what is wrong; `[DONE]` ends the stream.
 */
function undeclaredChunks(body: string): string[] {
  const lines = [...body.matchAll(/^data: (.*)$/gm)].map((match) => match[1]!);
  expect(lines.at(-1)).toBe('[DONE]');
  return lines.slice(0, -1).flatMap((line) => {
    const chunk: unknown = JSON.parse(line);
    return isChunk(chunk) ? [] : [`${line}: ${describeSchemaIssues((isChunk.errors ?? []) as SchemaIssue[]).message}`];
  });
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  openai = await createFakeOpenAIUpstream([]);
  anthropic = await createFakeAnthropicUpstream([]);
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({
        fake: { type: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-upstream' },
        claude: { type: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant' },
      }),
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await openai?.close();
  await anthropic?.close();
});

describe('POST /v1/chat/completions through the openai SDK', () => {
  it('answers a plain completion with content and usage', async () => {
    openai.push({ content: 'Hello from upstream.', usage: { prompt_tokens: 9, completion_tokens: 3 } });
    const completion = await server.client.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.3,
      max_completion_tokens: 64,
      stop: ['\n\n'],
      seed: 42,
      user: 'u-1',
      response_format: { type: 'json_object' },
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('fake/gpt-test');
    expect(completion.choices[0]!.message.content).toBe('Hello from upstream.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
    const sent = openai.requests.at(-1);
    expect(sent).toMatchObject({
      model: 'gpt-test',
      temperature: 0.3,
      max_completion_tokens: 64,
      stop: ['\n\n'],
      seed: 42,
      user: 'u-1',
      response_format: { type: 'json_object' },
    });
    expect(openai.server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('streams chunks with delta content, finish_reason, a usage chunk and [DONE]', async () => {
    openai.push({ content: 'The tide is coming in.', usage: { prompt_tokens: 4, completion_tokens: 5 } });
    const stream = await server.client.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'Tell me about the sea' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('The tide is coming in.');
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(3);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 });

    openai.push({ content: 'raw wire' });
    const raw = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'fake/m', messages: [{ role: 'user', content: 'x' }], stream: true },
    });
    expect(raw.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await raw.text();
    expect(text.startsWith('data: {')).toBe(true);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).not.toContain('event:');
    expect(undeclaredChunks(text)).toEqual([]);
  });

  it('carries a tool-call round trip, streaming and not', async () => {
    openai.push(
      { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Lisbon' } }] },
      { content: 'It is 21C in Lisbon.' },
      { content: 'Checking. ', toolCalls: [{ id: 'call_w2', name: 'get_weather', arguments: { city: 'Oslo' } }] },
    );
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Lisbon?' }];
    const first = await server.client.chat.completions.create({
      model: 'fake/gpt-test',
      messages,
      tools: [weatherTool],
      tool_choice: 'auto',
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toEqual({ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"celsius":21}' });
    const second = await server.client.chat.completions.create({ model: 'fake/gpt-test', messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('It is 21C in Lisbon.');
    const sent = openai.requests.at(-1);
    expect(sent.tools).toEqual([weatherTool]);
    expect(sent.messages.at(-2).tool_calls[0].id).toBe('call_w1');
    expect(sent.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_w1', content: '{"celsius":21}' });

    const stream = server.client.chat.completions.stream({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'Oslo?' }],
      tools: [weatherTool],
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Checking. ');
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_w2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');

    // Every chunk of a streamed tool call, with log probabilities and the usage chunk, is a declared ChatCompletionChunk.
    openai.push({ content: 'Looking. ', toolCalls: [{ id: 'call_w3', name: 'get_weather', arguments: { city: 'Bergen' } }] });
    const raw = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: {
        model: 'fake/gpt-test',
        messages: [{ role: 'user', content: 'Bergen?' }],
        tools: [weatherTool],
        logprobs: true,
        stream: true,
        stream_options: { include_usage: true },
      },
    });
    const text = await raw.text();
    expect(text).toContain('"tool_calls":[{"index":0,"id":"call_w3"');
    expect(undeclaredChunks(text)).toEqual([]);
  });

  it('answers 400 listing configured vendors for an unknown vendor or malformed id', async () => {
    const unknown = await server.client.chat.completions
      .create({ model: 'mystery/x', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown.param).toBe('model');
    expect(unknown.message).toContain("'fake'");
    expect(unknown.message).toContain("'claude'");
    const malformed = await server.client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error) => error);
    expect(malformed).toBeInstanceOf(OpenAI.BadRequestError);
    expect(malformed.message).toContain('<vendor>/<model_name>');
    const missing = await server.request('/v1/chat/completions', { method: 'POST', json: { model: 'fake/x' } });
    expect(missing.status).toBe(400);
    expect((await json<ErrorBody>(missing)).error.message).toContain('messages');
  });

  it('keeps an upstream 429 as 429 and turns a 500 into 502 with the upstream message, streaming too', async () => {
    openai.push(
      { error: { status: 429, message: 'Rate limit reached for fake' } },
      { error: { status: 500, message: 'upstream exploded' } },
      { error: { status: 503, message: 'overloaded' } },
    );
    const limited = await server.client.chat.completions
      .create({ model: 'fake/m', messages: [{ role: 'user', content: 'a' }] })
      .catch((error) => error);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.message).toContain('Rate limit reached for fake');
    const failed = await server.client.chat.completions
      .create({ model: 'fake/m', messages: [{ role: 'user', content: 'b' }] })
      .catch((error) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(failed.status).toBe(502);
    expect(failed.message).toContain('upstream exploded');
    const streamed = await server.client.chat.completions
      .create({ model: 'fake/m', messages: [{ role: 'user', content: 'c' }], stream: true })
      .catch((error) => error);
    expect(streamed.status).toBe(502);
    expect(streamed.message).toContain('overloaded');
  });

  it('aborts the upstream request when the client gives up on a non-streaming call', async () => {
    const slow = await createFakeOpenAIUpstream([{ hang: true }]);
    const own = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ slow: { type: 'openai', baseUrl: slow.baseUrl } }) } });
    try {
      const controller = new AbortController();
      const pending = own.client.chat.completions
        .create({ model: 'slow/m', messages: [{ role: 'user', content: 'wait' }] }, { signal: controller.signal })
        .catch((caught) => caught);
      while (slow.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      await slow.waitForClose(3000);
      expect(slow.closedEarly).toBe(1);
    } finally {
      await own.close({ keepData: false });
      await slow.close();
    }
  });

  it('sends an error chunk (no retry) when the upstream connection drops after streaming began', async () => {
    const broken = await createTestServer({
      'POST /v1/chat/completions': (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Partial "}}]}\n\n');
        setTimeout(() => response.destroy(), 50);
      },
    });
    const own = await startFathom({
      env: { FATHOM_PROVIDERS: JSON.stringify({ broken: { type: 'openai', baseUrl: `${broken.url}/v1` } }) },
    });
    try {
      const stream = await own.client.chat.completions.create({
        model: 'broken/m',
        messages: [{ role: 'user', content: 'go' }],
        stream: true,
      });
      let text = '';
      const error = await (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })().catch((caught) => caught);
      expect(text).toBe('Partial ');
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.message).toMatch(/broken/);
      expect(broken.requests).toHaveLength(1);
    } finally {
      await own.close({ keepData: false });
      await broken.close();
    }
  });

  it('answers 504 when the upstream does not answer within FATHOM_MODEL_TIMEOUT_MS', async () => {
    const stuck = await createFakeOpenAIUpstream([{ hang: true }]);
    const own = await startFathom({
      env: { FATHOM_MODEL_TIMEOUT_MS: '300', FATHOM_PROVIDERS: JSON.stringify({ stuck: { type: 'openai', baseUrl: stuck.baseUrl } }) },
    });
    try {
      const error = await own.client.chat.completions
        .create({ model: 'stuck/m', messages: [{ role: 'user', content: 'hello?' }] })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(error.status).toBe(504);
      expect(error.code).toBe('timeout');
    } finally {
      await own.close({ keepData: false });
      await stuck.close();
    }
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    const slow = await createFakeOpenAIUpstream([{ content: 'one two three four five six seven eight nine ten', delayMs: 150 }]);
    const own = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ slow: { type: 'openai', baseUrl: slow.baseUrl } }) } });
    try {
      const controller = new AbortController();
      const stream = await own.client.chat.completions.create(
        { model: 'slow/m', messages: [{ role: 'user', content: 'count' }], stream: true },
        { signal: controller.signal },
      );
      let seen = 0;
      // The SDK ends the iteration quietly (or throws an abort error) once the signal fires.
      await (async () => {
        for await (const chunk of stream) {
          if (chunk.choices[0]?.delta.content && ++seen === 2) controller.abort();
        }
      })().catch((error) => expect(String(error)).toMatch(/abort/i));
      expect(seen).toBe(2);
      await slow.waitForClose(3000);
      expect(slow.closedEarly).toBe(1);
    } finally {
      await own.close({ keepData: false });
      await slow.close();
    }
  });
});

describe('Anthropic vendor through /v1/chat/completions', () => {
  it('translates a tool round trip both ways, non-streaming', async () => {
    anthropic.push(
      {
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Rome' } }],
        usage: { prompt_tokens: 30, completion_tokens: 8 },
      },
      { content: 'Rome is sunny.' },
    );
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'Weather in Rome?' },
    ];
    const first = await server.client.chat.completions.create({ model: 'claude/claude-test', messages, tools: [weatherTool] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
    ]);
    expect(first.usage).toEqual({ prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny, 25C' });
    const second = await server.client.chat.completions.create({ model: 'claude/claude-test', messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('Rome is sunny.');
    const sent = anthropic.requests.at(-1);
    expect(sent.system).toBe('Answer briefly.');
    expect(sent.tools[0]).toEqual({
      name: 'get_weather',
      description: weatherTool.function.description,
      input_schema: weatherTool.function.parameters,
    });
    expect(sent.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Rome?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Rome' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny, 25C' }] },
    ]);
    expect(anthropic.server.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant');
  });

  it('translates a streamed tool call and its answer', async () => {
    anthropic.push(
      {
        content: 'Let me look. ',
        toolCalls: [{ id: 'toolu_2', name: 'get_weather', arguments: { city: 'Kyoto' } }],
        usage: { prompt_tokens: 12, completion_tokens: 7 },
      },
      { content: 'Kyoto: light rain.' },
    );
    const stream = server.client.chat.completions.stream({
      model: 'claude/claude-test',
      messages: [{ role: 'user', content: 'Kyoto?' }],
      tools: [weatherTool],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Let me look. ');
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Kyoto"}' } },
    ]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.usage).toEqual({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    const answer = await server.client.chat.completions.create({
      model: 'claude/claude-test',
      stream: true,
      messages: [
        { role: 'user', content: 'Kyoto?' },
        final.choices[0]!.message as OpenAI.Chat.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: 'toolu_2', content: 'light rain' },
      ],
      tools: [weatherTool],
    });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of answer) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Kyoto: light rain.');
    expect(finish).toBe('stop');
    expect(anthropic.requests.at(-1).stream).toBe(true);
    expect(anthropic.requests.at(-1).messages[1].content).toEqual([
      { type: 'text', text: 'Let me look. ' },
      { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Kyoto' } },
    ]);
  });
});

describe('the declared request', () => {
  it('refuses with 400 naming the field what used to fail inside the Anthropic mapping with a 500', async () => {
    for (const [body, param] of [
      // A tool_choice other than a function (OpenAI's allowed_tools) had no function name to read.
      [{ tools: [weatherTool], tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } }, 'tool_choice.type'],
      // Content that is neither a string nor parts was iterated as parts.
      [{ messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
      // A custom tool call in the history had no function to translate into tool_use.
      [
        {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'g', input: 'x' } }] },
          ],
        },
        'messages[1].tool_calls[0].type',
      ],
    ] as const) {
      const response = await server.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'claude/claude-test', messages: [{ role: 'user', content: 'x' }], ...body },
      });
      expect(response.status, param).toBe(400);
      expect((await json<ErrorBody>(response)).error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('refuses what the answer could not carry, naming the field, and reads null as absent', async () => {
    for (const [body, param, message] of [
      [{ n: 2 }, 'n', "Invalid 'n': expected 1. Fathom answers one choice per request."],
      [{ functions: [{ name: 'f' }] }, 'functions', "Unsupported parameter: 'functions'. Use 'tools' and 'tool_choice'."],
      [{ modalities: ['text', 'audio'] }, 'modalities[1]', "Invalid value for 'modalities[1]': expected 'text'."],
    ] as const) {
      const response = await server.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }], ...body },
      });
      expect(response.status).toBe(400);
      expect((await json<ErrorBody>(response)).error).toMatchObject({ param, message });
    }
    openai.push({ content: 'Nulls are fine.' });
    const answer = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }], n: null, audio: null, tools: null, temperature: null },
    });
    expect(answer.status).toBe(200);
    expect(openai.requests.at(-1)).not.toHaveProperty('audio');
    expect(openai.requests.at(-1)).not.toHaveProperty('temperature');
  });
});

describe('logprobs and top_logprobs', () => {
  const pieces = ['Tides ', 'turn ', 'twice.'];
  const expected = (top: number) => pieces.map((piece, index) => fakeTokenLogprob(piece, index, top));

  it('passes them to OpenAI-compatible upstreams and returns choices[].logprobs, streaming and not', async () => {
    openai.push({ content: pieces.join('') }, { content: pieces.join('') });
    const completion = await server.client.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'Tides?' }],
      logprobs: true,
      top_logprobs: 2,
    });
    expect(openai.requests.at(-1)).toMatchObject({ logprobs: true, top_logprobs: 2 });
    expect(completion.choices[0]!.logprobs).toEqual({ content: expected(2), refusal: null });

    const stream = await server.client.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'Tides?' }],
      logprobs: true,
      stream: true,
      store: true,
    });
    const tokens: OpenAI.Chat.ChatCompletionTokenLogprob[] = [];
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      tokens.push(...(chunk.choices[0]?.logprobs?.content ?? []));
    }
    expect(openai.requests.at(-1)).toMatchObject({ logprobs: true, stream: true });
    expect(tokens).toEqual(expected(0));
    // The stored completion of a streamed answer keeps them too.
    expect((await server.client.chat.completions.retrieve(id)).choices[0]!.logprobs).toEqual({ content: expected(0), refusal: null });
  });

  it('answers logprobs: null when they were not asked for, and refuses bad values naming the field', async () => {
    openai.push({ content: 'Plain.' });
    const plain = await server.client.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }] });
    expect(plain.choices[0]!.logprobs).toBeNull();
    expect(openai.requests.at(-1)).not.toHaveProperty('logprobs');
    for (const [body, param] of [
      [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
      [{ top_logprobs: 3 }, 'top_logprobs'],
      [{ logprobs: 'yes' }, 'logprobs'],
    ] as const) {
      const response = await server.request('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }], ...body },
      });
      expect(response.status).toBe(400);
      expect((await json<ErrorBody>(response)).error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('refuses them for an Anthropic vendor, naming the field, streaming or not', async () => {
    for (const stream of [false, true]) {
      for (const [body, param] of [
        [{ logprobs: true }, 'logprobs'],
        [{ logprobs: true, top_logprobs: 3 }, 'logprobs'],
      ] as const) {
        const response = await server.request('/v1/chat/completions', {
          method: 'POST',
          json: { model: 'claude/claude-test', messages: [{ role: 'user', content: 'x' }], stream, ...body },
        });
        expect(response.status).toBe(400);
        const { error } = await json<ErrorBody>(response);
        expect(error).toMatchObject({ type: 'invalid_request_error', param });
        expect(error.message).toContain('log probabilities');
      }
    }
    // Not asking for them is fine.
    anthropic.push({ content: 'Fine.' });
    const answer = await server.client.chat.completions.create({
      model: 'claude/claude-test',
      messages: [{ role: 'user', content: 'x' }],
      logprobs: false,
      top_logprobs: 0,
    });
    expect(answer.choices[0]!.message.content).toBe('Fine.');
    expect(answer.choices[0]!.logprobs).toBeNull();
  });
});
