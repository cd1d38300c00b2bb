import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
let storeId: string;

const handbook = [
  '# Harbour handbook',
  '',
  'Refunds for cancelled boat tours are paid within five working days to the original card.',
  '',
  'The lighthouse is open to visitors on Saturdays from 10:00 to 16:00.',
].join('\n');

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
  const file = await server.client.files.create({ file: await toFile(Buffer.from(handbook), 'handbook.md'), purpose: 'assistants' });
  const store = await server.client.vectorStores.create({ name: 'harbour' });
  const storeFile = await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
  expect(storeFile.status).toBe('completed');
  storeId = store.id;
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

describe('/v1/responses with the hosted file_search tool over Fathom search', () => {
  it('searches the vector store when the model calls file_search, then answers from the passages', async () => {
    upstream.push(
      { toolCalls: [{ id: 'call_fs1', name: 'file_search', arguments: { query: 'refund cancelled boat tour' } }] },
      { content: 'Refunds arrive within five working days.' },
    );
    const response = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'How long do refunds take?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      include: ['file_search_call.results'],
    });
    expect(response.output_text).toBe('Refunds arrive within five working days.');
    const search = response.output[0] as OpenAI.Responses.ResponseFileSearchToolCall;
    expect(search).toMatchObject({ type: 'file_search_call', status: 'completed', queries: ['refund cancelled boat tour'] });
    expect(search.results!.length).toBeGreaterThan(0);
    expect(search.results![0]).toMatchObject({ filename: 'handbook.md', file_id: expect.stringMatching(/^file-/) });
    expect(search.results!.map((result) => result.text).join(' ')).toContain('five working days');
    expect(upstream.requests.at(-2).tools.map((tool: any) => tool.function.name)).toEqual(['file_search']);
    const toolMessage = upstream.requests.at(-1).messages.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_fs1' });
    expect(toolMessage.content).toContain('five working days');
  });

  it('streams the file_search_call events and keeps results null unless included', async () => {
    upstream.push(
      { toolCalls: [{ name: 'file_search', arguments: { query: 'lighthouse opening hours' } }] },
      { content: 'Saturdays, 10 to 16.' },
    );
    const stream = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'When can I visit the lighthouse?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      stream: true,
    });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types).toEqual(
      expect.arrayContaining([
        'response.created',
        'response.file_search_call.in_progress',
        'response.file_search_call.searching',
        'response.file_search_call.completed',
        'response.output_text.delta',
        'response.completed',
      ]),
    );
    expect(types.indexOf('response.file_search_call.completed')).toBeLessThan(types.indexOf('response.output_text.delta'));
    expect(completed!.output[0]).toMatchObject({ type: 'file_search_call', results: null });
    expect(completed!.output_text).toBe('Saturdays, 10 to 16.');
    expect(upstream.requests.at(-1).messages.at(-1).content).toContain('Saturdays');
  });

  it('turns the citation markers the model copied into file_citation annotations, streamed and stored', async () => {
    const answer = 'Refunds arrive within five working days【0:0†handbook.md】, on the original card.';
    const clean = 'Refunds arrive within five working days, on the original card.';
    upstream.push({ toolCalls: [{ name: 'file_search', arguments: { query: 'refunds' } }] }, { content: answer });
    const stream = await server.client.responses.create({
      model: 'fake/gpt-test',
      input: 'How long do refunds take?',
      tools: [{ type: 'file_search', vector_store_ids: [storeId] }],
      stream: true,
    });
    let text = '';
    const added: unknown[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.output_text.annotation.added') added.push(event.annotation);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe(clean);
    const citation = {
      type: 'file_citation',
      filename: 'handbook.md',
      file_id: expect.stringMatching(/^file-/),
      index: clean.indexOf(','),
    };
    expect(added).toEqual([citation]);
    expect(completed!.output_text).toBe(clean);
    const message = completed!.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage;
    expect(message.content[0]).toMatchObject({ type: 'output_text', text: clean, annotations: [citation] });
    const stored = await server.client.responses.retrieve(completed!.id);
    expect((stored.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({
      annotations: [citation],
    });
    const withResults = await server.client.responses.retrieve(completed!.id, { include: ['file_search_call.results'] });
    expect((withResults.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results!.length).toBeGreaterThan(0);
    expect((stored.output[0] as OpenAI.Responses.ResponseFileSearchToolCall).results).toBeNull();
  });

  it("answers 404 for another account's vector store before calling the model", async () => {
    const other = await server.newAccount();
    const before = upstream.requests.length;
    const error = await other.client.responses
      .create({ model: 'fake/gpt-test', input: 'Refunds?', tools: [{ type: 'file_search', vector_store_ids: [storeId] }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const streamed = await other.client.responses
      .create({ model: 'fake/gpt-test', input: 'Refunds?', tools: [{ type: 'file_search', vector_store_ids: [storeId] }], stream: true })
      .catch((caught) => caught);
    expect(streamed).toBeInstanceOf(OpenAI.NotFoundError);
    expect(upstream.requests.length).toBe(before);
  });
});
