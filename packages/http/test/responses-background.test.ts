import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;
const model = 'fake/gpt-test';
const env = () => ({
  FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
  FATHOM_LEASE_SECONDS: '1',
});

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: env() });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('background responses', () => {
  it('answer at once, run server-side, and retrieve shows the final output', async () => {
    upstream.push({ content: 'Done in the background.', delayMs: 30 });
    const created = await server.client.responses.create({ model, input: 'Work on it.', background: true });
    expect(['queued', 'in_progress']).toContain(created.status);
    expect(created.background).toBe(true);
    let final: OpenAI.Responses.Response | undefined;
    await until(async () => {
      final = await server.client.responses.retrieve(created.id);
      return final.status === 'completed';
    });
    expect(final!.output_text).toBe('Done in the background.');
  });

  it('cancel ends a running background response cancelled and stops the model call', async () => {
    upstream.push({ content: 'never finishes', hang: true });
    const created = await server.client.responses.create({ model, input: 'Long task.', background: true });
    await until(async () => (await server.client.responses.retrieve(created.id)).status === 'in_progress');
    const closedBefore = upstream.closedEarly;
    const cancelled = await server.client.responses.cancel(created.id);
    expect(cancelled.status).toBe('cancelled');
    await until(async () => upstream.closedEarly > closedBefore);
    expect((await server.client.responses.retrieve(created.id)).status).toBe('cancelled');
    expect((await server.client.responses.cancel(created.id)).status).toBe('cancelled');
    upstream.push({ content: 'quick' });
    const foreground = await server.client.responses.create({ model, input: 'hi' });
    expect(await server.client.responses.cancel(foreground.id).catch((caught) => caught.status)).toBe(400);
  });

  it('streams a background response and resumes its stream after a sequence number', async () => {
    upstream.push({ content: 'One two three four five six.', delayMs: 5 });
    const stream = await server.client.responses.create({ model, input: 'Count.', background: true, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const id = (events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;

    const resumed = await server.client.responses.retrieve(id, { stream: true, starting_after: 3 });
    const again: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of resumed) again.push(event);
    expect(again.map((event) => event.sequence_number)).toEqual(events.slice(4).map((event) => event.sequence_number));
    expect(again.at(-1)!.type).toBe('response.completed');
  });

  it('is never left stuck: a response interrupted by a stop is finished by the next start', async () => {
    const first = await startFathom({ env: env() });
    upstream.push({ content: 'slow answer in many words to stream', delayMs: 400 });
    const created = await first.client.responses.create({ model, input: 'Take your time.', background: true });
    await until(async () => (await first.client.responses.retrieve(created.id)).status === 'in_progress');
    await first.close({ keepData: true });
    upstream.push({ content: 'Finished after the restart.' });
    const second = await startFathom({ env: env(), dataDir: first.dataDir });
    try {
      await until(async () => (await second.client.responses.retrieve(created.id)).status === 'completed');
      expect((await second.client.responses.retrieve(created.id)).output_text).toBe('Finished after the restart.');
    } finally {
      await second.close({ keepData: false });
    }
  });

  it('a response whose process died is taken over once its lease ends', async () => {
    const node = await startFathom({ env: env(), start: false });
    try {
      const created = await node.client.responses.create({ model, input: 'x', background: true });
      // As a killed process leaves it: claimed, running, its lease about to end and never renewed.
      await node.fathom.database.run(
        "UPDATE responses SET status = 'in_progress', lease_owner = 'gone|1|x', lease_until = ?, attempts = 1 WHERE id = ?",
        [Date.now() + 300, created.id],
      );
      upstream.push({ content: 'Taken over.' });
      node.fathom.start();
      await until(async () => (await node.client.responses.retrieve(created.id)).status === 'completed');
      expect((await node.client.responses.retrieve(created.id)).output_text).toBe('Taken over.');
    } finally {
      await node.close({ keepData: false });
    }
  });
});

describe('stored foreground responses are never left in_progress', () => {
  it('one whose process died (its lease ended, its host another) ends failed with server_error', async () => {
    const node = await startFathom({ env: env(), start: false });
    try {
      upstream.push({ content: 'Answered before the crash.' });
      const created = await node.client.responses.create({ model, input: 'x' });
      // As a process on another node leaves it when it is killed mid-stream: in_progress, leased, never renewed.
      const body = JSON.stringify({ ...created, status: 'in_progress', output: [], completed_at: null });
      await node.fathom.database.run(
        "UPDATE responses SET status = 'in_progress', body = ?, lease_owner = 'other-node|1|x', lease_until = ?, attempts = 1 WHERE id = ?",
        [body, Date.now() + 300, created.id],
      );
      expect((await node.client.responses.retrieve(created.id)).status).toBe('in_progress');
      node.fathom.start();
      await until(async () => (await node.client.responses.retrieve(created.id)).status !== 'in_progress');
      const ended = await node.client.responses.retrieve(created.id);
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatchObject({ code: 'server_error', message: expect.stringMatching(/stopped before it finished/) });
    } finally {
      await node.close({ keepData: false });
    }
  });

  it('one running when its server shuts down ends failed, and its stream says so', async () => {
    const node = await startFathom({ env: env() });
    try {
      upstream.push({ content: 'word '.repeat(300), delayMs: 100 });
      const stream = await node.client.responses.create({ model, input: 'Long.', stream: true });
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      const reading = (async () => {
        for await (const event of stream) events.push(event);
      })().catch(() => {});
      await until(async () => events.length > 0);
      const id = (events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
      await node.fathom.responses.close();
      await reading;
      expect(events.at(-1)!.type).toBe('response.failed');
      expect((await node.client.responses.retrieve(id)).status).toBe('failed');
    } finally {
      await node.close({ keepData: false });
    }
  });
});

describe('honest results', () => {
  it('says incomplete with reason max_output_tokens when the model stopped for length', async () => {
    upstream.push({ content: 'Cut off in the', finishReason: 'length' });
    const response = await server.client.responses.create({ model, input: 'Write a lot.', max_output_tokens: 5 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect((await server.client.responses.retrieve(response.id)).status).toBe('incomplete');
  });

  it('sends reasoning.effort to OpenAI-type upstreams as reasoning_effort', async () => {
    upstream.push({ content: 'Thought hard.' });
    const response = await server.client.responses.create({ model, input: 'Think.', reasoning: { effort: 'high' } });
    expect(response.reasoning).toMatchObject({ effort: 'high' });
    expect(upstream.requests.at(-1).reasoning_effort).toBe('high');
  });

  it('truncation auto drops the oldest turns to fit the model window instead of failing', async () => {
    const small = await startFathom({ env: { ...env(), FATHOM_CONTEXT_TOKENS: '200' } });
    try {
      const long = 'word '.repeat(120);
      upstream.push({ content: 'a' }, { content: 'b' }, { content: 'c' });
      const first = await small.client.responses.create({ model, input: `First: ${long}` });
      const second = await small.client.responses.create({ model, input: `Second: ${long}`, previous_response_id: first.id });
      await small.client.responses.create({ model, input: 'Third, short.', previous_response_id: second.id, truncation: 'auto' });
      const sent = upstream.requests.at(-1).messages.map((message: { content: string }) => message.content);
      expect(sent.at(-1)).toBe('Third, short.');
      expect(sent.some((text: string) => text.startsWith('First:'))).toBe(false);
      upstream.push({ content: 'd' });
      await small.client.responses.create({ model, input: 'Fourth.', previous_response_id: second.id });
      expect(upstream.requests.at(-1).messages.some((message: { content: string }) => message.content.startsWith('First:'))).toBe(true);
    } finally {
      await small.close({ keepData: false });
    }
  });
});
