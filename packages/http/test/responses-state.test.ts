import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../../core/src/documents/__fixtures__/make-documents';
import { json, startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
const model = 'fake/gpt-test';

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

/** The messages the model received in the last chat request, as `role: text` lines. */
function lastConversation(): string[] {
  return upstream.requests
    .at(-1)
    .messages.map((message: { role: string; content: unknown; tool_calls?: Array<{ function: { name: string } }> }) => {
      const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      return message.tool_calls
        ? `${message.role}: calls ${message.tool_calls.map((call) => call.function.name).join(',')}`
        : `${message.role}: ${text}`;
    });
}

describe('stored responses', () => {
  it('stores responses by default (store echoed), retrieves, lists input items and deletes them', async () => {
    upstream.push({ content: 'Stored answer.' });
    const created = await server.client.responses.create({
      model,
      input: [{ role: 'user', content: 'First question' }],
      metadata: { topic: 'tides' },
    });
    expect(created).toMatchObject({ store: true }); // OpenAI echoes `store`; the SDK's Response type does not declare it
    expect(created.metadata).toEqual({ topic: 'tides' });
    const retrieved = await server.client.responses.retrieve(created.id);
    expect(retrieved).toMatchObject({ id: created.id, status: 'completed', output_text: 'Stored answer.' });
    expect(retrieved.output[0]!.id).toBe(created.output[0]!.id);

    const items = await server.client.responses.inputItems.list(created.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'First question' }] });
    expect(items.data[0]!.id).toMatch(/^msg_/);

    const deleted = await server.request(`/v1/responses/${created.id}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ id: created.id, object: 'response', deleted: true });
    const gone = await server.client.responses.retrieve(created.id).catch((caught) => caught);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('pages input items with order, limit and after', async () => {
    upstream.push({ content: 'ok' });
    const input = Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `line ${i}` }));
    const created = await server.client.responses.create({ model, input });
    const first = await server.client.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
    expect(first.data.map((item) => (item as { content: Array<{ text: string }> }).content[0]!.text)).toEqual(['line 0', 'line 1']);
    expect(first.has_more).toBe(true);
    const all = [];
    for await (const item of server.client.responses.inputItems.list(created.id, { order: 'asc', limit: 2 })) all.push(item);
    expect(all).toHaveLength(5);
    const newest = await server.client.responses.inputItems.list(created.id, { limit: 1 });
    expect((newest.data[0] as { content: Array<{ text: string }> }).content[0]!.text).toBe('line 4');
  });

  it('keeps nothing with store: false', async () => {
    upstream.push({ content: 'ephemeral' });
    const created = await server.client.responses.create({ model, input: 'hi', store: false });
    expect(created).toMatchObject({ store: false });
    expect(await server.client.responses.retrieve(created.id).catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("answers 404 for another account's response on every route", async () => {
    upstream.push({ content: 'mine' });
    const created = await server.client.responses.create({ model, input: 'hi' });
    const other = await server.newAccount();
    for (const call of [
      () => other.client.responses.retrieve(created.id),
      () => other.client.responses.delete(created.id),
      () => other.client.responses.cancel(created.id),
      () => other.client.responses.inputItems.list(created.id),
      () => other.client.responses.create({ model, input: 'continue', previous_response_id: created.id }),
      () => other.client.responses.create({ model, input: [{ type: 'item_reference', id: created.output[0]!.id! }] }),
    ]) {
      expect(await call().catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await server.client.responses.retrieve(created.id)).status).toBe('completed');
  });
});

describe('previous_response_id', () => {
  it('gives the model every earlier input and output, drops earlier instructions, and works over long chains', async () => {
    upstream.push({ content: 'Answer one.' });
    let previous = await server.client.responses.create({ model, instructions: 'Old rules.', input: 'Question one' });
    for (let turn = 2; turn <= 4; turn++) {
      upstream.push({ content: `Answer ${turn}.` });
      previous = await server.client.responses.create({
        model,
        instructions: 'New rules.',
        input: `Question ${turn}`,
        previous_response_id: previous.id,
      });
    }
    expect(previous.previous_response_id).toBeTruthy();
    expect(lastConversation()).toEqual([
      'system: New rules.',
      'user: Question one',
      'assistant: Answer one.',
      'user: Question 2',
      'assistant: Answer 2.',
      'user: Question 3',
      'assistant: Answer 3.',
      'user: Question 4',
    ]);
  });

  it('answers 404 naming previous_response_id for an unknown id', async () => {
    const error = await server.client.responses
      .create({ model, input: 'hi', previous_response_id: 'resp_missing' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error.param).toBe('previous_response_id');
  });

  it('replays an earlier hosted file search to the model as the call and its result', async () => {
    const file = await server.client.files.create({
      file: await toFile(Buffer.from('The ferry leaves at 7:15 every morning.'), 'ferry.md'),
      purpose: 'assistants',
    });
    const store = await server.client.vectorStores.create({ name: 'ferry' });
    await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
    upstream.push({ toolCalls: [{ id: 'call_s', name: 'file_search', arguments: { query: 'ferry departure' } }] }, { content: 'At 7:15.' });
    const first = await server.client.responses.create({
      model,
      input: 'When does the ferry leave?',
      tools: [{ type: 'file_search', vector_store_ids: [store.id] }],
    });
    upstream.push({ content: 'Yes, daily.' });
    await server.client.responses.create({ model, input: 'Every day?', previous_response_id: first.id });
    const messages = upstream.requests.at(-1).messages;
    const call = messages.find((message: { tool_calls?: unknown[] }) => message.tool_calls);
    expect(call.tool_calls[0].function).toEqual({ name: 'file_search', arguments: JSON.stringify({ query: 'ferry departure' }) });
    const result = messages.find((message: { role: string }) => message.role === 'tool');
    expect(result.tool_call_id).toBe(call.tool_calls[0].id);
    expect(result.content).toContain('7:15');
  });
});

describe('input items the SDKs send back', () => {
  it('accepts a whole earlier output (function_call, reasoning, file_search_call) pushed back as input', async () => {
    upstream.push({ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Brest' } }] });
    const tools: OpenAI.Responses.Tool[] = [
      { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
    ];
    const first = await server.client.responses.create({ model, input: 'Weather in Brest?', tools, store: false });
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: 'Weather in Brest?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'I should call the tool.' }] },
      ...(first.output as OpenAI.Responses.ResponseInputItem[]),
      { type: 'function_call_output', call_id: 'call_w', output: 'Sunny, 21°C' },
    ];
    upstream.push({ content: 'Sunny and 21°C.' });
    const second = await server.client.responses.create({ model, input, tools, include: ['reasoning.encrypted_content'] });
    expect(second.output_text).toBe('Sunny and 21°C.');
    expect(lastConversation()).toEqual(['user: Weather in Brest?', 'assistant: calls get_weather', 'tool: Sunny, 21°C']);
  });

  it('resolves item_reference to the stored item of the same account', async () => {
    upstream.push({ content: 'The harbour opens at dawn.' });
    const first = await server.client.responses.create({ model, input: 'When does the harbour open?' });
    upstream.push({ content: 'And closes at dusk.' });
    await server.client.responses.create({
      model,
      input: [
        { role: 'user', content: 'When does the harbour open?' },
        { type: 'item_reference', id: first.output[0]!.id! },
        { role: 'user', content: 'And when does it close?' },
      ],
    });
    expect(lastConversation()).toEqual([
      'user: When does the harbour open?',
      'assistant: The harbour opens at dawn.',
      'user: And when does it close?',
    ]);
    const missing = await server.client.responses
      .create({ model, input: [{ type: 'item_reference', id: 'msg_nothing' }] })
      .catch((caught) => caught);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missing.param).toBe('input[0].id');
  });

  it('gives the model the extracted text of input_file parts: uploaded files and inline file_data (PDF, DOCX, text)', async () => {
    const pdf = await makePdf(['The pilot boards at buoy seven.']);
    const uploaded = await server.client.files.create({ file: await toFile(Buffer.from(pdf), 'pilot.pdf'), purpose: 'user_data' });
    const docx = await makeDocx(['Anchoring is forbidden in zone B.']);
    upstream.push({ content: 'Noted.' });
    await server.client.responses.create({
      model,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Read these:' },
            { type: 'input_file', file_id: uploaded.id },
            {
              type: 'input_file',
              filename: 'rules.docx',
              file_data: `data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,${Buffer.from(docx).toString('base64')}`,
            },
            { type: 'input_file', filename: 'note.txt', file_data: Buffer.from('Tugs answer on channel 12.').toString('base64') },
          ],
        },
      ],
    });
    const text = JSON.stringify(upstream.requests.at(-1).messages);
    expect(text).toContain('The pilot boards at buoy seven.');
    expect(text).toContain('Anchoring is forbidden in zone B.');
    expect(text).toContain('Tugs answer on channel 12.');
    const other = await server.newAccount();
    const foreign = await other.client.responses
      .create({ model, input: [{ role: 'user', content: [{ type: 'input_file', file_id: uploaded.id }] }] })
      .catch((caught) => caught);
    expect(foreign).toBeInstanceOf(OpenAI.NotFoundError);
    expect(foreign.param).toBe('input[0].content[0].file_id');
  });
});

describe('null means absent', () => {
  it('accepts null for every nullable field of /v1/responses and /v1/chat/completions and /v1/embeddings', async () => {
    upstream.push({ content: 'fine' }, { content: 'fine too' });
    const response = await server.request('/v1/responses', {
      method: 'POST',
      json: {
        model,
        input: 'hi',
        include: null,
        tools: null,
        tool_choice: null,
        temperature: null,
        top_p: null,
        max_output_tokens: null,
        instructions: null,
        metadata: null,
        previous_response_id: null,
        conversation: null,
        reasoning: null,
        text: null,
        truncation: null,
        store: null,
        stream: null,
        background: null,
        parallel_tool_calls: null,
        user: undefined,
      },
    });
    expect(response.status).toBe(200);
    expect((await json<OpenAI.Responses.Response>(response)).output_text).toBe('fine');
    const chat = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        temperature: null,
        max_tokens: null,
        seed: null,
        stream: null,
        user: null,
        tools: null,
      },
    });
    expect(chat.status).toBe(200);
    const embeddings = await server.request('/v1/embeddings', {
      method: 'POST',
      json: { model: 'fathom', input: 'hi', dimensions: null, user: null },
    });
    expect(embeddings.status).toBe(200);
  });
});
