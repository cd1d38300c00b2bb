import { createOpenAI } from '@ai-sdk/openai';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
let storeId: string;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
  const file = await server.client.files.create({
    file: await toFile(Buffer.from('# Fares\n\nA day pass for the harbour ferry costs 12 euros.'), 'fares.md'),
    purpose: 'assistants',
  });
  const store = await server.client.vectorStores.create({ name: 'fares' });
  await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
  storeId = store.id;
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

/** The messages of the last chat request the model received, as `role: text` lines. */
function lastMessages(): string[] {
  return upstream.requests
    .at(-1)
    .messages.map((message: { role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }) =>
      message.tool_calls
        ? `${message.role}: calls ${message.tool_calls.map((call) => call.function.name).join(',')}`
        : `${message.role}: ${typeof message.content === 'string' ? message.content.slice(0, 60) : JSON.stringify(message.content)}`,
    );
}

describe('the Vercel AI SDK, default openai(model) (Responses, store: true)', () => {
  it('holds a three-turn conversation with hosted file_search, a function tool and streaming', async () => {
    const openai = createOpenAI({ apiKey: server.apiKey, baseURL: server.baseURL });
    const model = openai('fake/gpt-test');
    const messages: ModelMessage[] = [{ role: 'user', content: 'How much is a ferry day pass?' }];

    // Turn 1: the model searches the documents (hosted by Fathom), then answers citing them.
    upstream.push(
      { toolCalls: [{ name: 'file_search', arguments: { query: 'ferry day pass price' } }] },
      { content: 'A day pass costs 12 euros【0:0†fares.md】.' },
    );
    const first = await generateText({ model, messages, tools: { file_search: openai.tools.fileSearch({ vectorStoreIds: [storeId] }) } });
    expect(first.text).toBe('A day pass costs 12 euros.');
    expect(first.sources.map((source) => (source as { filename?: string }).filename ?? source.title)).toContain('fares.md');
    messages.push(...first.response.messages);

    // Turn 2: earlier assistant output goes back as item_reference; a local tool runs in a second step.
    messages.push({ role: 'user', content: 'And what is the weather at the harbour?' });
    upstream.push(
      { toolCalls: [{ id: 'call_weather', name: 'weather', arguments: { place: 'harbour' } }] },
      { content: 'Sunny, 21 degrees.' },
    );
    const second = await generateText({
      model,
      messages,
      tools: {
        weather: tool({ inputSchema: z.object({ place: z.string() }), execute: async ({ place }) => `Sunny at the ${place}, 21 degrees` }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(second.text).toBe('Sunny, 21 degrees.');
    // The SDK sent the earlier answer back as an item_reference; Fathom resolved it to the stored item.
    const firstAnswerId = (await server.client.responses.retrieve(first.response.id)).output.find((item) => item.type === 'message')!.id;
    const sentItems = await server.client.responses.inputItems.list(second.steps[0]!.response.id, { order: 'asc' });
    expect(sentItems.data.map((item) => item.id)).toContain(firstAnswerId);
    expect(lastMessages()).toEqual(
      expect.arrayContaining([
        'user: How much is a ferry day pass?',
        'assistant: A day pass costs 12 euros.',
        'tool: Sunny at the harbour, 21 degrees',
      ]),
    );
    messages.push(...second.response.messages);

    // Turn 3: streamed, with the whole history resolved.
    messages.push({ role: 'user', content: 'Summarise.' });
    upstream.push({ content: 'Ferry pass 12 euros; sunny weather.' });
    const third = streamText({ model, messages });
    let streamed = '';
    for await (const delta of third.textStream) streamed += delta;
    expect(streamed).toBe('Ferry pass 12 euros; sunny weather.');
    const sent = lastMessages();
    expect(sent[0]).toBe('user: How much is a ferry day pass?');
    expect(sent).toContain('assistant: A day pass costs 12 euros.');
    expect(sent).toContain('assistant: Sunny, 21 degrees.');
    expect(sent.at(-1)).toBe('user: Summarise.');
  });
});
