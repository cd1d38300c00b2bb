import { createFakeAnthropicUpstream, createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  openai = await createFakeOpenAIUpstream([]);
  anthropic = await createFakeAnthropicUpstream([]);
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({
        fake: { type: 'openai', baseUrl: openai.baseUrl },
        claude: { type: 'anthropic', baseUrl: anthropic.baseUrl },
      }),
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await openai?.close();
  await anthropic?.close();
});

describe('POST /v1/responses through the openai SDK', () => {
  it('maps input and instructions to chat and answers output items with output_text', async () => {
    openai.push({ content: 'Low tide at 6am.', usage: { prompt_tokens: 8, completion_tokens: 5 } });
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      instructions: 'You are a harbour master.',
      input: 'When is low tide?',
      temperature: 0.1,
      max_output_tokens: 50,
    });
    expect(response.id).toMatch(/^resp_/);
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Low tide at 6am.');
    expect(response.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Low tide at 6am.' }],
    });
    expect(response.usage).toMatchObject({ input_tokens: 8, output_tokens: 5, total_tokens: 13 });
    expect(openai.requests.at(-1)).toMatchObject({
      model: 'gpt-test',
      temperature: 0.1,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'You are a harbour master.' },
        { role: 'user', content: 'When is low tide?' },
      ],
    });
  });

  it('streams response.created, response.in_progress, output_text deltas and response.completed', async () => {
    openai.push({ content: 'Waves roll in slowly.' });
    const stream = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: [{ role: 'user', content: 'Describe the sea' }],
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    const deltas = events.filter((event) => event.type === 'response.output_text.delta') as OpenAI.Responses.ResponseTextDeltaEvent[];
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.delta).join('')).toBe('Waves roll in slowly.');
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output_text ?? (completed.response.output[0] as any).content[0].text).toBe('Waves roll in slowly.');

    openai.push({ content: 'Helper stream.' });
    const helper = server.client.responses.stream({ model: 'fake/gpt-test', input: 'hi' });
    const final = await helper.finalResponse();
    expect(final.output_text).toBe('Helper stream.');
  });

  it('maps function tools to chat tools and returns function_call items; their outputs come back as tool messages', async () => {
    openai.push({ toolCalls: [{ id: 'call_t1', name: 'get_tide', arguments: { port: 'Brest' } }] }, { content: 'Brest: low tide 6am.' });
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_tide',
        description: 'Tide table',
        parameters: { type: 'object', properties: { port: { type: 'string' } }, required: ['port'] },
        strict: true,
      },
    ];
    const first = await server.client.responses.create({ model: 'fake/gpt-test', input: 'Tide in Brest?', tools });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_t1', name: 'get_tide', arguments: '{"port":"Brest"}' });
    expect(openai.requests.at(-1).tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_tide',
          description: 'Tide table',
          parameters: tools[0]!.type === 'function' ? tools[0]!.parameters : undefined,
          strict: true,
        },
      },
    ]);
    const second = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: [
        { role: 'user', content: 'Tide in Brest?' },
        call,
        { type: 'function_call_output', call_id: 'call_t1', output: '{"low":"06:00"}' },
      ],
      tools,
    });
    expect(second.output_text).toBe('Brest: low tide 6am.');
    expect(openai.requests.at(-1).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_t1', type: 'function', function: { name: 'get_tide', arguments: '{"port":"Brest"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_t1', content: '{"low":"06:00"}' },
    ]);
  });

  it('works with an Anthropic vendor too', async () => {
    anthropic.push({ content: 'Bonjour.' });
    const response = await server.client.responses.create({ model: 'claude/claude-test', instructions: 'French only.', input: 'Hello' });
    expect(response.output_text).toBe('Bonjour.');
    expect(anthropic.requests.at(-1)).toMatchObject({
      system: 'French only.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('answers 400 naming the field for unsupported formats, tools and contradictory state', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ previous_response_id: 'resp_abc', conversation: 'conv_1' }, 'conversation'],
      [{ store: false, background: true }, 'background'],
      [{ temperature: 'hot' }, 'temperature'],
      [{ include: ['everything'] }, 'include[0]'],
      [{ input: [{ type: 'computer_call', id: 'x' }] }, 'input[0].type'],
      [{ text: { format: { type: 'grammar', syntax: 'lark', definition: 'x' } } }, 'text.format.type'],
      [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    ];
    for (const [extra, param] of cases) {
      const error = await server.client.responses
        .create({ model: 'fake/gpt-test', input: 'hi', ...extra } as any)
        .catch((caught) => caught);
      expect(error, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe(param);
      expect(error.message).toContain(param.split(/[.[]/)[0]);
    }
    const unknown = await server.client.responses.create({ model: 'nowhere/x', input: 'hi' }).catch((caught) => caught);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown.param).toBe('model');
  });

  it('passes json_schema text format through as response_format', async () => {
    openai.push({ content: '{"port":"Brest"}' });
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'Which port?',
      text: {
        format: { type: 'json_schema', name: 'port', schema: { type: 'object', properties: { port: { type: 'string' } } }, strict: true },
      },
    });
    expect(JSON.parse(response.output_text)).toEqual({ port: 'Brest' });
    expect(openai.requests.at(-1).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'port', schema: { type: 'object', properties: { port: { type: 'string' } } }, strict: true },
    });
  });

  it('keeps an upstream 429 as 429 when streaming a response', async () => {
    openai.push({ error: { status: 429, message: 'too many tides' } });
    const error = await server.client.responses.create({ model: 'fake/gpt-test', input: 'hi', stream: true }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.message).toContain('too many tides');
  });
});
