import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

/**
 * Issue 23 (hardening, round 3): what one account key could do to the Responses API — fan a large
 * stored item out by reference, reach another account's files and stores through background mode,
 * delete a conversation under a running response.
 */

let upstream: FakeUpstream;
let server: TestFathom;
const model = 'fake/gpt-test';
/** docs/api.md: what one request may pull in besides its own body. */
const CONTEXT_BYTES = 32 * 1024 * 1024;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

const references = (id: string, count: number) => Array.from({ length: count }, () => ({ type: 'item_reference', id }));

async function storedBytes(responseId: string): Promise<number> {
  const row = await server.fathom.database.get<{ bytes: number | null }>(
    'SELECT SUM(LENGTH(item)) AS bytes FROM response_items WHERE response_id = ?',
    [responseId],
  );
  return Number(row?.bytes ?? 0);
}

describe('item_reference fan-out', () => {
  let big: OpenAI.Responses.ResponseOutputItem;
  let size: number;

  beforeAll(async () => {
    // A stored 1 MB item: the model's answer (output is not capped; it is what the references point at).
    upstream.push({ content: 'x'.repeat(1_000_000) });
    const first = await server.client.responses.create({ model, input: 'Write a lot.' });
    big = first.output[0]!;
    size = Buffer.byteLength(JSON.stringify(big));
  });

  it('refuses 320 references to a large item with 400 naming the one that crosses the budget, before loading them', async () => {
    const calls = upstream.requests.length;
    const request = { model, input: references(big.id!, 320) };
    expect(JSON.stringify(request).length).toBeLessThan(25_000);
    const answer = await server.request('/v1/responses', { method: 'POST', json: request });
    expect(answer.status).toBe(400);
    const crossing = Math.floor(CONTEXT_BYTES / size);
    expect((await json<ErrorBody>(answer)).error).toMatchObject({ param: `input[${crossing}].id`, code: 'context_too_large' });
    expect(upstream.requests.length).toBe(calls);
    // Background requests are measured when they are made, not when they run.
    const background = await server.request('/v1/responses', { method: 'POST', json: { ...request, background: true } });
    expect(background.status).toBe(400);
  });

  it('stores references, not copies: twelve references to a 1 MB item add about a kilobyte', async () => {
    upstream.push({ content: 'Read them.' });
    const response = await server.client.responses.create({ model, input: references(big.id!, 12) as OpenAI.Responses.ResponseInput });
    expect(response.status).toBe('completed');
    // The model saw the item twelve times.
    expect(upstream.requests.at(-1).messages.filter((message: { content: string }) => message.content.length === 1_000_000)).toHaveLength(
      12,
    );
    expect(await storedBytes(response.id)).toBeLessThan(2_000);
    // Listing the input shows the items the references name.
    const listed = await server.client.responses.inputItems.list(response.id, { limit: 3 });
    expect(listed.data.map((item) => item.id)).toEqual([big.id, big.id, big.id]);
    expect(JSON.stringify(listed.data[0]).length).toBeGreaterThan(1_000_000);
  });

  it('bounds the previous_response_id chain the same way: 400 naming it, or the oldest turns left out with truncation auto', async () => {
    upstream.push({ content: 'one' }, { content: 'two' });
    const first = await server.client.responses.create({ model, input: references(big.id!, 12) as OpenAI.Responses.ResponseInput });
    const second = await server.client.responses.create({
      model,
      previous_response_id: first.id,
      input: references(big.id!, 12) as OpenAI.Responses.ResponseInput,
    });
    // 12 new references plus 24 earlier ones: 36 MB.
    const third = { model, previous_response_id: second.id, input: references(big.id!, 12) };
    const refused = await server.request('/v1/responses', { method: 'POST', json: third });
    expect(refused.status).toBe(400);
    expect((await json<ErrorBody>(refused)).error).toMatchObject({ param: 'previous_response_id', code: 'context_too_large' });
    // With truncation auto the oldest response is not even loaded (and the model window cuts further).
    upstream.push({ content: 'three' });
    const truncated = await server.request('/v1/responses', { method: 'POST', json: { ...third, truncation: 'auto' } });
    expect(truncated.status).toBe(200);
    expect(upstream.requests.at(-1).messages.map((message: { content: string }) => message.content)).not.toContain('one');
  });
});

describe("another account's files and stores", () => {
  it('answer 404 naming the field when the request is made, in the foreground and in the background alike', async () => {
    const file = await server.client.files.create({
      file: await toFile(Buffer.from('Private notes of the first account.'), 'notes.txt'),
      purpose: 'user_data',
    });
    const store = await server.client.vectorStores.create({ name: 'private' });
    const other = await server.newAccount();
    const cases = [
      {
        body: { input: [{ role: 'user', content: [{ type: 'input_file', file_id: file.id }] }] },
        param: 'input[0].content[0].file_id',
      },
      {
        body: { input: [{ role: 'user', content: [{ type: 'input_image', file_id: file.id }] }] },
        param: 'input[0].content[0].file_id',
      },
      {
        body: {
          input: 'search',
          tools: [
            { type: 'function', name: 'f' },
            { type: 'file_search', vector_store_ids: [store.id] },
          ],
        },
        param: 'tools[1].vector_store_ids[0]',
      },
    ];
    const calls = upstream.requests.length;
    for (const { body, param } of cases) {
      for (const background of [false, true]) {
        const answer = await server.request('/v1/responses', {
          method: 'POST',
          apiKey: other.apiKey,
          json: { model, ...body, background },
        });
        expect({ background, status: answer.status }).toEqual({ background, status: 404 });
        expect((await json<ErrorBody>(answer)).error).toMatchObject({ param, code: 'not_found' });
      }
    }
    // Nor can a conversation item carry it in, for a later response to fail on.
    const item = { role: 'user', content: [{ type: 'input_file', file_id: file.id }] };
    const conversation = await other.client.conversations.create({});
    for (const [path, body] of [
      ['/v1/conversations', { items: [item] }],
      [`/v1/conversations/${conversation.id}/items`, { items: [item] }],
    ] as const) {
      const answer = await server.request(path, { method: 'POST', apiKey: other.apiKey, json: body });
      expect(answer.status).toBe(404);
      expect((await json<ErrorBody>(answer)).error.param).toBe('items[0].content[0].file_id');
    }
    expect(upstream.requests.length).toBe(calls);
    // Nothing was queued for the other account.
    const queued = await server.fathom.database.get<{ count: number }>('SELECT COUNT(*) AS count FROM responses WHERE account_id = ?', [
      other.id,
    ]);
    expect(Number(queued!.count)).toBe(0);
  });
});

describe('deleting a conversation while its responses run', () => {
  async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const slow = (text: string) => ({ content: `${text} in a few slow words`, delayMs: 150 });

  it('lets a background response finish: completed, its output kept, no SQL text anywhere', async () => {
    const conversation = await server.client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Hi.' }] });
    upstream.push(slow('Background answer'));
    const created = await server.client.responses.create({ model, conversation: conversation.id, input: 'Go.', background: true });
    await until(async () => (await server.client.responses.retrieve(created.id)).status === 'in_progress');
    await server.client.conversations.delete(conversation.id);
    await until(async () => !['queued', 'in_progress'].includes((await server.client.responses.retrieve(created.id)).status ?? ''));
    const done = await server.client.responses.retrieve(created.id);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'completed', output_text: 'Background answer in a few slow words' });
  });

  it('lets a foreground response finish, streamed or not', async () => {
    for (const stream of [false, true]) {
      const conversation = await server.client.conversations.create({});
      upstream.push(slow(`Foreground ${stream}`));
      const calls = upstream.requests.length;
      const answer = server.request('/v1/responses', {
        method: 'POST',
        json: { model, conversation: conversation.id, input: 'Go.', stream },
      });
      await until(async () => upstream.requests.length > calls);
      await server.client.conversations.delete(conversation.id);
      const response = await answer;
      expect(response.status).toBe(200);
      const text = await response.text();
      // Whole words: a random id such as resp_...sqL... is not a database error.
      expect(text).not.toMatch(/\b(FOREIGN KEY|constraint|SQL|SQLITE\w*)\b/i);
      const id = stream ? /"id":"(resp_[^"]+)"/.exec(text)![1]! : JSON.parse(text).id;
      expect((await server.client.responses.retrieve(id)).status).toBe('completed');
    }
  });

  it('fails a queued response whose conversation was deleted before it ran, saying so', async () => {
    const node = await startFathom({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
      start: false,
    });
    try {
      const conversation = await node.client.conversations.create({});
      const created = await node.client.responses.create({ model, conversation: conversation.id, input: 'Later.', background: true });
      await node.client.conversations.delete(conversation.id);
      node.fathom.start();
      await until(async () => (await node.client.responses.retrieve(created.id)).status === 'failed');
      expect((await node.client.responses.retrieve(created.id)).error).toEqual({
        code: 'server_error',
        message: `No conversation found with id '${conversation.id}'.`,
      });
    } finally {
      await node.close({ keepData: false });
    }
  });
});
