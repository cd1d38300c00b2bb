import { afterEach, describe, expect, it } from 'vitest';
import { createFakeAnthropicUpstream, createFakeOpenAIUpstream, type FakeScript, type FakeUpstream } from '../../test';
import type { ChatStreamPart } from '../types';
import { AnthropicProvider } from './anthropic/anthropic-provider';
import type { ChatProvider } from './chat-provider';
import { OpenAICompatibleProvider } from './openai-compatible/openai-compatible-provider';

/** One conformance suite for every ChatProvider: each runs against a fake upstream of its own wire format. */
const implementations: Array<{
  name: string;
  start: (script: FakeScript) => Promise<FakeUpstream>;
  create: (baseUrl: string) => ChatProvider;
}> = [
  {
    name: 'OpenAICompatibleProvider',
    start: (script) => createFakeOpenAIUpstream(script, { models: ['m1', 'm2'] }),
    create: (baseUrl) => new OpenAICompatibleProvider({ vendor: 'v', baseUrl, apiKey: 'k' }),
  },
  {
    name: 'AnthropicProvider',
    start: (script) => createFakeAnthropicUpstream(script, { models: ['m1', 'm2'] }),
    create: (baseUrl) => new AnthropicProvider({ vendor: 'v', baseUrl, apiKey: 'k' }),
  },
];

const tool = {
  type: 'function' as const,
  function: { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { id: { type: 'integer' } } } },
};
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(implementations)('$name conforms to ChatProvider', ({ start, create }) => {
  async function setup(script: FakeScript) {
    const upstream = await start(script);
    const provider = create(upstream.baseUrl);
    cleanups.push(async () => {
      await provider.close();
      await upstream.close();
    });
    return { upstream, provider };
  }
  const user = { model: 'ignored', messages: [{ role: 'user' as const, content: 'hi' }] };

  it('completes text with finish reason and usage', async () => {
    const { provider, upstream } = await setup([{ content: 'Hello world', usage: { prompt_tokens: 3, completion_tokens: 2 } }]);
    expect(await provider.complete('m1', user)).toEqual({
      message: { role: 'assistant', content: 'Hello world' },
      finishReason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(upstream.requests[0].model).toBe('m1');
  });

  it('completes tool calls with their ids and JSON arguments', async () => {
    const { provider } = await setup([
      {
        toolCalls: [
          { id: 'c1', name: 'lookup', arguments: { id: 1 } },
          { id: 'c2', name: 'lookup', arguments: { id: 2 } },
        ],
      },
    ]);
    const result = await provider.complete('m1', { ...user, tools: [tool] });
    expect(result.finishReason).toBe('tool_calls');
    expect(result.message.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"id":1}' } },
      { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{"id":2}' } },
    ]);
  });

  it('streams text then tool calls, ending with one finish part carrying usage', async () => {
    const { provider } = await setup([
      {
        content: 'Let me see. ',
        toolCalls: [{ id: 'c9', name: 'lookup', arguments: { id: 9 } }],
        usage: { prompt_tokens: 4, completion_tokens: 6 },
      },
    ]);
    const parts: ChatStreamPart[] = [];
    for await (const part of provider.stream('m1', { ...user, tools: [tool] })) parts.push(part);
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part: any) => part.text)
        .join(''),
    ).toBe('Let me see. ');
    const calls = parts.filter((part) => part.type === 'tool-call-delta') as Extract<ChatStreamPart, { type: 'tool-call-delta' }>[];
    expect(calls.every((call) => call.index === 0)).toBe(true);
    expect(calls[0]).toMatchObject({ id: 'c9' });
    expect(calls.map((call) => call.name ?? '').join('')).toBe('lookup');
    expect(calls.map((call) => call.argumentsDelta ?? '').join('')).toBe('{"id":9}');
    expect(parts.filter((part) => part.type === 'finish')).toEqual([
      { type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 } },
    ]);
    expect(parts.at(-1)!.type).toBe('finish');
  });

  it('maps length finish and upstream errors (429 stays, 500 -> 502)', async () => {
    const { provider } = await setup([
      { content: 'cut', finishReason: 'length' },
      { error: { status: 429, message: 'slow down' } },
      { error: { status: 500, message: 'down' } },
    ]);
    expect((await provider.complete('m1', user)).finishReason).toBe('length');
    await expect(provider.complete('m1', user)).rejects.toMatchObject({
      status: 429,
      statusCode: 429,
      message: expect.stringContaining('slow down'),
    });
    await expect(
      (async () => {
        for await (const _part of provider.stream('m1', user)) void _part;
      })(),
    ).rejects.toMatchObject({ status: 502, statusCode: 500, message: expect.stringContaining('down') });
  });

  it('lists the upstream models', async () => {
    const { provider } = await setup([]);
    expect(await provider.listModels()).toEqual(['m1', 'm2']);
  });
});
