/**
 * The behaviour of `ChatAdapterContract` the run loops rely on, as one suite run against the real
 * `ChatAdapter` (over a scripted upstream on 127.0.0.1) and against the in-memory `fakeChat` the
 * assistant tests use, so the fake cannot drift from what the real adapter does.
 */
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../errors';
import type { ChatAdapterContract, ChatMessage, ChatStreamPart, ChatToolDefinition, FinishReason } from '../models/types';

/** One scripted model answer, in terms both implementations can be given. */
export interface ScriptedTurn {
  content?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  finishReason?: FinishReason;
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The provider answers this HTTP error instead. */
  error?: { status: number; message: string };
  /** The provider never answers. */
  hang?: boolean;
}

export interface ScriptedChat {
  chat: ChatAdapterContract;
  /** What the model received, in order: the messages and tool names of each call. */
  requests(): Array<{ messages: ChatMessage[]; tools: string[] }>;
  close(): Promise<void>;
}

const MODEL = 'fake/model';
const weather: ChatToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

async function collect(parts: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const out: ChatStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

export function describeChatContractConformance(name: string, setup: (script: ScriptedTurn[]) => Promise<ScriptedChat>): void {
  describe(`${name} conforms to the ChatAdapterContract the run loops use`, () => {
    it('answers text with its finish reason and usage, the same by complete() and by stream()', async () => {
      const turn: ScriptedTurn = { content: 'Refunds take 14 days.', usage: { prompt_tokens: 12, completion_tokens: 6 } };
      const { chat, close } = await setup([turn, turn]);
      const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'Refunds?' }] };
      const result = await chat.complete(request);
      expect(result).toMatchObject({
        message: { role: 'assistant', content: 'Refunds take 14 days.' },
        finishReason: 'stop',
        usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
      });
      const parts = await collect(chat.stream(request));
      const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
      expect(text).toBe('Refunds take 14 days.');
      expect(parts.at(-1)).toEqual({
        type: 'finish',
        finishReason: 'stop',
        usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
      });
      expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
      await close();
    });

    it('gives tool calls (id, name, JSON arguments) that stream deltas assemble to, and passes `length` through', async () => {
      const calls: ScriptedTurn = {
        toolCalls: [
          { name: 'get_weather', arguments: { city: 'Lisbon' } },
          { name: 'get_weather', arguments: { city: 'Porto' } },
        ],
        usage: { prompt_tokens: 20, completion_tokens: 10 },
      };
      const cut: ScriptedTurn = { content: 'A long', finishReason: 'length', usage: { prompt_tokens: 5, completion_tokens: 2 } };
      const { chat, requests, close } = await setup([calls, calls, cut]);
      const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'Weather?' }], tools: [weather] };
      const result = await chat.complete(request);
      expect(result.finishReason).toBe('tool_calls');
      expect(result.message.tool_calls?.map((call) => [call.type, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
        ['function', 'get_weather', { city: 'Lisbon' }],
        ['function', 'get_weather', { city: 'Porto' }],
      ]);
      for (const call of result.message.tool_calls ?? []) expect(call.id).toMatch(/\S/);
      const assembled = new Map<number, { id: string; name: string; arguments: string }>();
      const parts = await collect(chat.stream(request));
      for (const part of parts) {
        if (part.type !== 'tool-call-delta') continue;
        const call = assembled.get(part.index) ?? { id: '', name: '', arguments: '' };
        call.id ||= part.id ?? '';
        call.name += part.name ?? '';
        call.arguments += part.argumentsDelta ?? '';
        assembled.set(part.index, call);
      }
      expect([...assembled.values()].map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
        ['get_weather', { city: 'Lisbon' }],
        ['get_weather', { city: 'Porto' }],
      ]);
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool_calls' });
      expect((await chat.complete({ model: MODEL, messages: request.messages })).finishReason).toBe('length');
      expect(requests().map((seen) => seen.tools)).toEqual([['get_weather'], ['get_weather'], []]);
      expect(requests()[0]!.messages).toEqual([{ role: 'user', content: 'Weather?' }]);
      await close();
    });

    it('fails a rate-limited call with an UpstreamError of status 429 naming the provider message, from complete() and stream()', async () => {
      const limited: ScriptedTurn = { error: { status: 429, message: 'slow down' }, usage: { prompt_tokens: 0, completion_tokens: 0 } };
      const { chat, close } = await setup([limited, limited]);
      const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };
      for (const call of [() => chat.complete(request), () => collect(chat.stream(request))]) {
        const error = await call().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(UpstreamError);
        expect(error).toMatchObject({ statusCode: 429, status: 429, message: expect.stringContaining('slow down') });
      }
      await close();
    });

    it('gives up a call that does not answer when its signal aborts', async () => {
      const stuck: ScriptedTurn = { hang: true, usage: { prompt_tokens: 0, completion_tokens: 0 } };
      const { chat, close } = await setup([stuck, stuck]);
      const request = { model: MODEL, messages: [{ role: 'user' as const, content: 'hi' }] };
      for (const call of [
        (signal: AbortSignal) => chat.complete(request, { signal }),
        (signal: AbortSignal) => collect(chat.stream(request, { signal })),
      ]) {
        const controller = new AbortController();
        const pending = call(controller.signal);
        setTimeout(() => controller.abort(new Error('stop')), 20);
        await expect(pending).rejects.toBeTruthy();
      }
      await close();
    });
  });
}
