import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
import { ChatCompletionChunks, readChatCompletionParams, toChatCompletion } from './chat-completions-wire';
import type { ChatStreamPart } from './types';
import type { ChatCompletionCreateParams } from './wire/chat-completion-params';

const base: ChatCompletionCreateParams = { model: 'v/m', messages: [{ role: 'user', content: 'hi' }] };

describe('readChatCompletionParams', () => {
  it('maps validated params, passing fields it does not read through and reading the stream and storage settings', () => {
    const call = readChatCompletionParams({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      presence_penalty: 0.5,
      modalities: ['text'],
      logprobs: false,
      temperature: null,
      seed: null,
      store: true,
      metadata: { team: 'ops' },
      // A field the schema does not declare (vLLM's): requests are open, so it arrives and is passed on.
      ...{ top_k: 20 },
    });
    expect(call).toEqual({
      request: expect.objectContaining({
        model: 'v/m',
        messages: [{ role: 'user', content: 'hi' }],
        extra: { presence_penalty: 0.5, top_k: 20 },
      }),
      stream: true,
      includeUsage: true,
      store: true,
      metadata: { team: 'ops' },
    });
    expect(call.request.temperature).toBeUndefined();
    expect(call.request).not.toHaveProperty('extra.seed');
  });

  it('keeps the known fields of each message and no others', () => {
    const { request } = readChatCompletionParams({
      model: 'v/m',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }], name: 'ann' },
        {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }], name: 'ann' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ]);
  });

  it('reads logprobs and top_logprobs into the request (they reach OpenAI-compatible upstreams)', () => {
    const call = readChatCompletionParams({ ...base, logprobs: true, top_logprobs: 5 });
    expect(call.request).toMatchObject({ logprobs: true, top_logprobs: 5 });
    expect(call.request.extra).toBeUndefined();
  });

  it('refuses top_logprobs without logprobs, the one rule the schema cannot say', () => {
    expect(() => readChatCompletionParams({ ...base, top_logprobs: 3 })).toThrow(
      expect.objectContaining({ constructor: InvalidRequestError, param: 'top_logprobs' }),
    );
    expect(readChatCompletionParams({ ...base, top_logprobs: 0 }).request.top_logprobs).toBe(0);
  });
});

describe('chat.completion encoding', () => {
  it('encodes a result and stream parts as the wire objects', () => {
    const result = toChatCompletion(
      {
        id: 'chatcmpl-1',
        model: 'v/m',
        message: { role: 'assistant', content: 'ok' },
        finishReason: 'stop',
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
      5,
    );
    expect(result).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 5,
      model: 'v/m',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    const chunks = new ChatCompletionChunks('chatcmpl-2', 'v/m', 7);
    expect(chunks.first().choices[0]!.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.of({ type: 'tool-call-delta', index: 1, id: 'call_1', name: 'f', argumentsDelta: '{' }).choices[0]!.delta).toEqual({
      tool_calls: [{ index: 1, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{' } }],
    });
    expect(chunks.of({ type: 'tool-call-delta', index: 1, argumentsDelta: '}' }).choices[0]!.delta).toEqual({
      tool_calls: [{ index: 1, function: { arguments: '}' } }],
    });
    expect(
      chunks.of({ type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })
        .choices[0]!.finish_reason,
    ).toBe('tool_calls');
    expect(chunks.usageChunk()).toEqual({
      id: 'chatcmpl-2',
      object: 'chat.completion.chunk',
      created: 7,
      model: 'v/m',
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('encodes every kind of stream part as the same JSON text as the chunk object (the streaming hot path)', () => {
    const chunks = new ChatCompletionChunks('chatcmpl-3', 'v/m "quoted"', 9);
    const parts: ChatStreamPart[] = [
      { type: 'text-delta', text: 'plain' },
      { type: 'text-delta', text: 'quotes " \\ newline \n tab \t unicode é 🌊 \u2028 nul \u0000' },
      { type: 'text-delta', text: '' },
      {
        type: 'text-delta',
        text: 'Hi',
        logprobs: { content: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [] }], refusal: null },
      },
      { type: 'tool-call-delta', index: 1, id: 'call_1', name: 'lookup', argumentsDelta: '{"q":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '1}' },
      { type: 'finish', finishReason: 'tool_calls', usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
    ];
    for (const part of parts) {
      const text = chunks.json(part);
      expect(text).toBe(JSON.stringify(chunks.of(part)));
      expect(JSON.parse(text)).toEqual(chunks.of(part));
    }
  });
});
