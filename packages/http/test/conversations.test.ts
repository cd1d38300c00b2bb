import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

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

describe('Conversations API', () => {
  it('creates with items and metadata, retrieves, updates and deletes', async () => {
    const conversation = await server.client.conversations.create({
      metadata: { customer: 'c-17' },
      items: [{ type: 'message', role: 'user', content: 'My order is late.' }],
    });
    expect(conversation).toMatchObject({ object: 'conversation', metadata: { customer: 'c-17' } });
    expect(conversation.id).toMatch(/^conv_/);
    expect(await server.client.conversations.retrieve(conversation.id)).toEqual(conversation);
    const updated = await server.client.conversations.update(conversation.id, { metadata: { customer: 'c-18' } });
    expect(updated.metadata).toEqual({ customer: 'c-18' });
    const deleted = await server.client.conversations.delete(conversation.id);
    expect(deleted).toEqual({ id: conversation.id, object: 'conversation.deleted', deleted: true });
    expect(await server.client.conversations.retrieve(conversation.id).catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('lists, adds, retrieves and deletes items', async () => {
    const conversation = await server.client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'one' }] });
    const added = await server.client.conversations.items.create(conversation.id, {
      items: [
        { type: 'message', role: 'assistant', content: 'two' },
        { type: 'message', role: 'user', content: 'three' },
      ],
    });
    expect(added.data).toHaveLength(2);
    const texts = async (order: 'asc' | 'desc') => {
      const out: string[] = [];
      for await (const item of server.client.conversations.items.list(conversation.id, { order, limit: 2 })) {
        out.push((item as { content: Array<{ text: string }> }).content[0]!.text);
      }
      return out;
    };
    expect(await texts('asc')).toEqual(['one', 'two', 'three']);
    expect(await texts('desc')).toEqual(['three', 'two', 'one']);
    const itemId = added.data[0]!.id!;
    expect(await server.client.conversations.items.retrieve(itemId, { conversation_id: conversation.id })).toMatchObject({
      role: 'assistant',
    });
    const after = await server.client.conversations.items.delete(itemId, { conversation_id: conversation.id });
    expect(after.id).toBe(conversation.id);
    expect(await texts('asc')).toEqual(['one', 'three']);
    const tooMany = await server.client.conversations.items
      .create(conversation.id, {
        items: Array.from({ length: 21 }, () => ({ type: 'message' as const, role: 'user' as const, content: 'x' })),
      })
      .catch((caught) => caught);
    expect(tooMany).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tooMany.param).toBe('items');
  });

  it('runs responses in a conversation: its items are the context and each turn is appended', async () => {
    const conversation = await server.client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'I am Ana.' }] });
    upstream.push({ content: 'Hello Ana.' });
    const first = await server.client.responses.create({ model, conversation: conversation.id, input: 'Say hello.' });
    expect(first.conversation).toEqual({ id: conversation.id });
    upstream.push({ content: 'Your name is Ana.' });
    await server.client.responses.create({ model, conversation: { id: conversation.id }, input: 'What is my name?' });
    expect(upstream.requests.at(-1).messages).toEqual([
      { role: 'user', content: 'I am Ana.' },
      { role: 'user', content: 'Say hello.' },
      { role: 'assistant', content: 'Hello Ana.' },
      { role: 'user', content: 'What is my name?' },
    ]);
    const items = await server.client.conversations.items.list(conversation.id, { order: 'asc' });
    expect(items.data.map((item) => (item as { role: string }).role)).toEqual(['user', 'user', 'assistant', 'user', 'assistant']);

    const both = await server.client.responses
      .create({ model, conversation: conversation.id, previous_response_id: first.id, input: 'x' })
      .catch((caught) => caught);
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    await server.client.conversations.delete(conversation.id);
    expect((await server.client.responses.retrieve(first.id)).status).toBe('completed');
  });

  it("answers 404 for another account's conversation", async () => {
    const conversation = await server.client.conversations.create({});
    const other = await server.newAccount();
    for (const call of [
      () => other.client.conversations.retrieve(conversation.id),
      () => other.client.conversations.update(conversation.id, { metadata: {} }),
      () => other.client.conversations.delete(conversation.id),
      () => other.client.conversations.items.list(conversation.id),
      () => other.client.responses.create({ model, conversation: conversation.id, input: 'hi' }),
    ]) {
      expect(await call().catch((caught) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
    }
  });
});
