import { compileCheck, describeSchemaIssues, ResponseStreamEvent } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

// Issue 22's conformance misses on Responses and Conversations, each through the SDK a client uses. JSON
// answers are checked against their declarations by the harness (`checkAnswers`); streamed events are
// checked here against `ResponseStreamEvent`, event by event.

let upstream: FakeUpstream;
let server: TestFathom;
const model = 'fake/gpt-test';
const isStreamEvent = compileCheck(ResponseStreamEvent);

/** Every event of a stream, each checked against its declaration (the failure names the event and the field). */
async function declaredEvents(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) {
    if (!isStreamEvent(event)) throw new Error(`${event.type}: ${describeSchemaIssues([...isStreamEvent.issues]).message}`);
    events.push(event);
  }
  return events;
}

const NO_CACHE = { cached_tokens: 0, cache_write_tokens: 0 };

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

describe('Responses answers as the openai v7 types have them', () => {
  it('counts cache_write_tokens in usage on create, retrieve and the streamed response.completed', async () => {
    upstream.push({ content: 'Calm seas.', usage: { prompt_tokens: 7, completion_tokens: 3 } });
    const created = await server.client.responses.create({ model, input: 'Sea state?' });
    expect(created.usage?.input_tokens_details).toEqual(NO_CACHE);
    const retrieved = await server.client.responses.retrieve(created.id);
    expect(retrieved.usage?.input_tokens_details).toEqual(NO_CACHE);
    // Optional, not nullable: no `user` when the request named none; OpenAI's access programs are null.
    expect(retrieved).not.toHaveProperty('user');
    expect(retrieved.access_programs).toBeNull();

    upstream.push({ content: 'Rough seas ahead.' });
    const events = await declaredEvents(await server.client.responses.create({ model, input: 'And tomorrow?', stream: true }));
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.type).toBe('response.completed');
    expect(completed.response.usage?.input_tokens_details).toEqual(NO_CACHE);
    // While running, a response has no usage yet (optional, not nullable).
    expect((events[0] as OpenAI.Responses.ResponseCreatedEvent).response).not.toHaveProperty('usage');
  });

  it('gives output_text parts logprobs in response.content_part.added and done, and every event matches its declaration', async () => {
    upstream.push({ content: 'Two knots from the west.' });
    const events = await declaredEvents(await server.client.responses.create({ model, input: 'Wind?', stream: true }));
    const added = events.find((event) => event.type === 'response.content_part.added') as OpenAI.Responses.ResponseContentPartAddedEvent;
    expect(added.part).toEqual({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    const done = events.find((event) => event.type === 'response.content_part.done') as OpenAI.Responses.ResponseContentPartDoneEvent;
    expect(done.part).toMatchObject({ type: 'output_text', text: 'Two knots from the west.', logprobs: [] });
  });

  it('declares function call events and a background stream resumed after a sequence number', async () => {
    upstream.push({ toolCalls: [{ id: 'call_w', name: 'wind', arguments: { port: 'Brest' } }] });
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'wind', parameters: { type: 'object' }, strict: false }];
    const calls = await declaredEvents(await server.client.responses.create({ model, input: 'Wind in Brest?', tools, stream: true }));
    expect(calls.map((event) => event.type)).toContain('response.function_call_arguments.done');

    upstream.push({ content: 'Background answer in words.', delayMs: 5 });
    const first = await declaredEvents(await server.client.responses.create({ model, input: 'Later.', background: true, stream: true }));
    const id = (first[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const resumed = await declaredEvents(await server.client.responses.retrieve(id, { stream: true, starting_after: 2 }));
    expect(resumed.map((event) => event.sequence_number)).toEqual(first.slice(3).map((event) => event.sequence_number));
  });
});

describe('items built from the assistant messages a client sends', () => {
  it('have output_text parts with logprobs, in conversation items and in a response input items', async () => {
    const conversation = await server.client.conversations.create({
      items: [
        { role: 'user', content: 'Is the harbour open?' },
        { role: 'assistant', content: 'Yes, until dusk.' },
      ],
    });
    const items = await server.client.conversations.items.list(conversation.id);
    const assistant = items.data.find((item) => item.type === 'message' && item.role === 'assistant') as OpenAI.Conversations.Message;
    expect(assistant.content).toEqual([{ type: 'output_text', text: 'Yes, until dusk.', annotations: [], logprobs: [] }]);

    const added = await server.client.conversations.items.create(conversation.id, {
      items: [
        {
          id: 'msg_from_client',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Tide turns at 4.', annotations: [] }],
        },
      ],
    });
    expect(added.data[0]).toMatchObject({ content: [{ type: 'output_text', text: 'Tide turns at 4.', logprobs: [] }] });

    upstream.push({ content: 'Noted.' });
    const response = await server.client.responses.create({
      model,
      input: [
        { role: 'assistant', content: 'Earlier answer.' },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    const inputs = await server.client.responses.inputItems.list(response.id, { order: 'asc' });
    expect(inputs.data[0]).toMatchObject({ role: 'assistant', content: [{ type: 'output_text', logprobs: [] }] });
  });
});
