import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
import { ChatCompletionChunks, readChatCompletionsBody, toChatCompletion } from './chat-completions-wire';
import type { ChatStreamPart } from './types';

const base = { model: 'v/m', messages: [{ role: 'user', content: 'hi' }] };

describe('readChatCompletionsBody', () => {
  it('maps the wire body, passing fields it does not know through and reading the stream and storage settings', () => {
    const call = readChatCompletionsBody({
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      presence_penalty: 0.5,
      modalities: ['text'],
      logprobs: false,
      top_k: 20,
      temperature: null,
      store: true,
      metadata: { team: 'ops' },
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
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ logprobs: 'yes' }, 'logprobs'],
    [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
    [{ logprobs: true, top_logprobs: 1.5 }, 'top_logprobs'],
    [{ top_logprobs: 3 }, 'top_logprobs'],
    [{ modalities: ['text', 'audio'] }, 'modalities'],
    [{ functions: [{ name: 'f' }] }, 'functions'],
    [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
  ])('refuses %j naming %s', (extra, param) => {
    let error: unknown;
    try {
      readChatCompletionsBody({ ...base, ...extra });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe(param);
  });
});

it('reads logprobs and top_logprobs into the request (they reach OpenAI-compatible upstreams)', () => {
  const call = readChatCompletionsBody({ ...base, logprobs: true, top_logprobs: 5 });
  expect(call.request).toMatchObject({ logprobs: true, top_logprobs: 5 });
  expect(call.request.extra).toBeUndefined();
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
