import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { fileSearchTool } from '@openai/agents-openai';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
let storeId: string;
let runner: Runner;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
  const file = await server.client.files.create({
    file: await toFile(Buffer.from('# Moorings\n\nVisitor moorings are on pontoon C and cost 30 euros a night.'), 'moorings.md'),
    purpose: 'assistants',
  });
  const store = await server.client.vectorStores.create({ name: 'moorings' });
  await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
  storeId = store.id;
  setTracingDisabled(true);
  // A runner of this file's own: the SDK's default provider keeps the first client it was given for the
  // whole process, and test files share their worker process.
  runner = new Runner({
    modelProvider: new OpenAIProvider({ openAIClient: new OpenAI({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 }) }),
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

describe('the OpenAI Agents SDK (Responses)', () => {
  it('runs a turn after the hosted fileSearchTool with the earlier output (file_search_call included) sent back', async () => {
    const agent = new Agent({
      name: 'Harbour master',
      instructions: 'Answer questions about the harbour.',
      model: 'fake/gpt-test',
      tools: [
        fileSearchTool([storeId]),
        tool({
          name: 'tide',
          description: 'Next high tide',
          parameters: z.object({ port: z.string() }),
          execute: async ({ port }) => `High tide at ${port}: 14:20`,
        }),
      ],
    });
    upstream.push(
      { toolCalls: [{ name: 'file_search', arguments: { query: 'visitor mooring price' } }] },
      { content: 'Pontoon C, 30 euros a night.' },
    );
    const first = await runner.run(agent, 'Where can I moor and how much?');
    expect(first.finalOutput).toBe('Pontoon C, 30 euros a night.');
    expect(
      first.history.some(
        (item) => (item as { type?: string }).type === 'hosted_tool_call' || (item as { type?: string }).type === 'file_search_call',
      ),
    ).toBe(true);

    upstream.push({ toolCalls: [{ id: 'call_tide', name: 'tide', arguments: { port: 'Brest' } }] }, { content: 'High tide at 14:20.' });
    const second = await runner.run(agent, [...first.history, { role: 'user', content: 'When is high tide in Brest?' }]);
    expect(second.finalOutput).toBe('High tide at 14:20.');
    const sent = upstream.requests.at(-1).messages as Array<{
      role: string;
      content: string | null;
      tool_calls?: Array<{ function: { name: string } }>;
    }>;
    expect(sent.some((message) => message.tool_calls?.[0]?.function.name === 'file_search')).toBe(true);
    expect(sent.some((message) => message.role === 'tool' && String(message.content).includes('High tide at Brest: 14:20'))).toBe(true);
  });
});
