import { createFakeAnthropicUpstream, createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestFathom;
const model = 'fake/gpt-test';

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  anthropic = await createFakeAnthropicUpstream([]);
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({
        fake: { type: 'openai', baseUrl: upstream.baseUrl },
        claude: { type: 'anthropic', baseUrl: anthropic.baseUrl },
      }),
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
  await anthropic?.close();
});

describe('stored chat completions', () => {
  it('keeps store: true completions (plain and streamed) and lists, filters, updates, reads messages and deletes them', async () => {
    upstream.push({ content: 'Kept.' }, { content: 'Streamed and kept.' }, { content: 'Not kept.' });
    const kept = await server.client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Keep this.' },
      ],
      store: true,
      metadata: { project: 'harbour' },
    });
    const stream = await server.client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Stream this.' }],
      store: true,
      stream: true,
      metadata: { project: 'ferry' },
    });
    let streamedId = '';
    for await (const chunk of stream) streamedId = chunk.id;
    const notKept = await server.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Forget this.' }] });

    const retrieved = await server.client.chat.completions.retrieve(kept.id);
    expect(retrieved).toMatchObject({ id: kept.id, metadata: { project: 'harbour' }, choices: [{ message: { content: 'Kept.' } }] });
    expect((await server.client.chat.completions.retrieve(streamedId)).choices[0]!.message.content).toBe('Streamed and kept.');
    expect(await server.client.chat.completions.retrieve(notKept.id).catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);

    const all = await server.client.chat.completions.list();
    expect(all.data.map((completion) => completion.id)).toEqual([kept.id, streamedId]);
    const filtered = await server.client.chat.completions.list({ metadata: { project: 'ferry' } });
    expect(filtered.data.map((completion) => completion.id)).toEqual([streamedId]);
    expect((await server.client.chat.completions.list({ model: 'fake/other' })).data).toEqual([]);

    const messages = await server.client.chat.completions.messages.list(kept.id);
    expect(messages.data.map((message) => [message.role, message.content])).toEqual([
      ['system', 'Be brief.'],
      ['user', 'Keep this.'],
    ]);
    expect(messages.data[0]!.id).toBeTruthy();

    const updated = await server.client.chat.completions.update(kept.id, { metadata: { project: 'lighthouse' } });
    expect(updated.metadata).toEqual({ project: 'lighthouse' });
    expect(await server.client.chat.completions.delete(kept.id)).toEqual({ id: kept.id, object: 'chat.completion.deleted', deleted: true });
    expect(await server.client.chat.completions.retrieve(kept.id).catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);

    const other = await server.newAccount();
    expect(await other.client.chat.completions.retrieve(streamedId).catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
    expect((await other.client.chat.completions.list()).data).toEqual([]);
  });
});

describe('stored request messages', () => {
  it('lists each message with its text, its text and image parts, and the known fields of its tool calls', async () => {
    upstream.push({ content: 'Seen.' });
    const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' as const } };
    const kept = await server.client.chat.completions.create({
      model,
      store: true,
      messages: [
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is ' },
            image,
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
            { type: 'text', text: 'this?' },
          ],
          name: 'ann',
        },
        {
          role: 'assistant',
          content: null,
          // A field the SDK does not type on a tool call reaches the upstream but is not listed back.
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' }, ...{ trace: 'x' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a harbour' },
      ],
    });
    const { data } = await server.client.chat.completions.messages.list(kept.id);
    expect(data).toEqual([
      { id: `${kept.id}-0`, role: 'developer', content: 'Be brief.', refusal: null, content_parts: null },
      {
        id: `${kept.id}-1`,
        role: 'user',
        content: 'What is this?',
        refusal: null,
        content_parts: [{ type: 'text', text: 'What is ' }, image, { type: 'text', text: 'this?' }],
        name: 'ann',
      },
      {
        id: `${kept.id}-2`,
        role: 'assistant',
        content: null,
        refusal: null,
        content_parts: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }],
      },
      { id: `${kept.id}-3`, role: 'tool', content: 'a harbour', refusal: null, content_parts: null, tool_call_id: 'call_1' },
    ]);
    const page = await server.client.chat.completions.messages.list(kept.id, { limit: 1, order: 'desc', after: `${kept.id}-2` });
    expect(page.data.map((message) => message.id)).toEqual([`${kept.id}-1`]);
  });

  it('checks a metadata filter like metadata, naming the field', async () => {
    const response = await server.request(`/v1/chat/completions?metadata[project]=${'x'.repeat(513)}`);
    expect(response.status).toBe(400);
    expect((await json<ErrorBody>(response)).error).toMatchObject({ param: 'metadata.project', code: 'string_above_max_length' });
    // A key is data, never a path into an object.
    const odd = await server.request('/v1/chat/completions?metadata[__proto__]=x&metadata[constructor]=y');
    expect(odd.status).toBe(200);
    expect((await json<{ data: unknown[] }>(odd)).data).toEqual([]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const update = await server.request('/v1/chat/completions/chatcmpl-none', { method: 'POST', json: {} });
    expect((await json<ErrorBody>(update)).error).toMatchObject({ param: 'metadata', code: 'missing_required_parameter' });
  });
});

describe('pass-through of fields Fathom does not know', () => {
  it('sends unknown fields unchanged to OpenAI-compatible upstreams and refuses them for Anthropic, naming the field', async () => {
    upstream.push({ content: 'ok' });
    await server.request('/v1/chat/completions', {
      method: 'POST',
      json: {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        top_k: 20,
        min_p: 0.05,
        chat_template_kwargs: { enable_thinking: false },
        options: { num_ctx: 8192 },
        presence_penalty: 0.5,
      },
    });
    expect(upstream.requests.at(-1)).toMatchObject({
      top_k: 20,
      min_p: 0.05,
      chat_template_kwargs: { enable_thinking: false },
      options: { num_ctx: 8192 },
      presence_penalty: 0.5,
    });
    const refused = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: 'claude/claude-test', messages: [{ role: 'user', content: 'hi' }], top_k: 20 },
    });
    expect(refused.status).toBe(400);
    expect((await json<ErrorBody>(refused)).error).toMatchObject({ param: 'top_k' });
  });
});

describe('embeddings dimensions', () => {
  it('shortens and renormalises below the native size and refuses more, naming the field', async () => {
    const full = await server.client.embeddings.create({ model: 'fathom', input: 'tide tables' });
    const native = full.data[0]!.embedding.length;
    const short = await server.client.embeddings.create({ model: 'fathom', input: 'tide tables', dimensions: 64 });
    const vector = short.data[0]!.embedding;
    expect(vector).toHaveLength(64);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    const head = full.data[0]!.embedding.slice(0, 64);
    const norm = Math.hypot(...head);
    expect(vector[0]).toBeCloseTo(head[0]! / norm, 6);
    const error = await server.client.embeddings.create({ model: 'fathom', input: 'x', dimensions: native + 1 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('dimensions');
  });
});
