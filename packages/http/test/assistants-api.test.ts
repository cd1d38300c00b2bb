import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MODEL, parseSse, startAssistantsTestBed, undeclaredStreamEvents, type AssistantsTestBed } from './assistants-fake-model';
import { type ErrorBody, json } from './harness';

/** Polls a run until it has `status`; fails the test when it does not get there within 10 s. */
async function waitForStatus(client: OpenAI, run: { id: string; thread_id: string }, status: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const current = await client.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id });
    if (current.status === status) return current;
    if (Date.now() > deadline) throw new Error(`run ${run.id} is ${current.status}, never reached ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('assistants API through the official SDK', () => {
  let bed: AssistantsTestBed;
  beforeAll(async () => {
    bed = await startAssistantsTestBed();
  });
  afterAll(() => bed.close());

  it('refuses a model id that names no configured vendor when the assistant is saved, not when it runs', async () => {
    const { client } = bed;
    for (const model of ['gpt-4o', 'nobody/some-model']) {
      const error = await client.beta.assistants.create({ model }).catch((caught) => caught);
      expect(error.status).toBe(400);
      expect(error.error).toMatchObject({ param: 'model', code: 'model_not_found' });
      expect(error.message).toContain('fake');
    }
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    await expect(client.beta.assistants.update(assistant.id, { model: 'bad' })).rejects.toMatchObject({ status: 400 });
    await expect(
      client.beta.threads.createAndRun({
        assistant_id: assistant.id,
        model: 'nobody/x',
        thread: { messages: [{ role: 'user', content: 'hi' }] },
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('creates, retrieves, updates, lists and deletes assistants in the SDK shape', async () => {
    const { client } = bed;
    const assistant = await client.beta.assistants.create({
      model: FAKE_MODEL,
      name: 'Docs helper',
      instructions: 'Answer from the documents.',
      tools: [{ type: 'file_search', file_search: { max_num_results: 5 } }],
      metadata: { team: 'support' },
    });
    expect(assistant).toMatchObject({
      object: 'assistant',
      model: FAKE_MODEL,
      name: 'Docs helper',
      tools: [{ type: 'file_search', file_search: { max_num_results: 5 } }],
      metadata: { team: 'support' },
    });
    expect(assistant.id).toMatch(/^asst_/);
    const store = await client.vectorStores.create({ name: 'docs' });
    const updated = await client.beta.assistants.update(assistant.id, {
      tool_resources: { file_search: { vector_store_ids: [store.id] } },
    });
    expect(updated.tool_resources?.file_search?.vector_store_ids).toEqual([store.id]);
    expect((await client.beta.assistants.retrieve(assistant.id)).name).toBe('Docs helper');
    const listed = await client.beta.assistants.list({ limit: 100 });
    expect(listed.data.map((a) => a.id)).toContain(assistant.id);
    expect(await client.beta.assistants.delete(assistant.id)).toEqual({ id: assistant.id, object: 'assistant.deleted', deleted: true });
    await expect(client.beta.assistants.retrieve(assistant.id)).rejects.toMatchObject({ status: 404 });
  });

  it('validates requests with OpenAI-style 400s and hides other accounts behind 404', async () => {
    const { client, server } = bed;
    await expect(client.beta.assistants.create({ model: FAKE_MODEL, tools: [{ type: 'code_interpreter' }] })).rejects.toMatchObject({
      status: 400,
      param: 'tools[0].type',
    });
    const missing = await server.request('/v1/assistants', { method: 'POST', json: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect((await json<ErrorBody>(missing)).error.message).toContain("'model'");
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    const other = await server.newAccount();
    await expect(other.client.beta.assistants.retrieve(assistant.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.client.beta.threads.createAndRun({ assistant_id: assistant.id })).rejects.toMatchObject({
      status: 404,
      param: 'assistant_id',
    });
  });

  it('refuses what Fathom does not offer with a 400 naming the field, and writes nothing', async () => {
    const { client, server } = bed;
    const refused = async (path: string, body: unknown) => {
      const response = await server.request(path, { method: 'POST', json: body });
      expect(response.status).toBe(400);
      return (await json<ErrorBody>(response)).error;
    };
    expect(
      await refused('/v1/assistants', { model: FAKE_MODEL, tool_resources: { file_search: { vector_stores: [{ file_ids: [] }] } } }),
    ).toMatchObject({ param: 'tool_resources.file_search.vector_stores', code: 'unsupported_parameter' });
    const thread = await client.beta.threads.create();
    expect(
      await refused(`/v1/threads/${thread.id}/messages`, {
        role: 'user',
        content: 'see attached',
        attachments: [{ file_id: 'file-x', tools: [{ type: 'code_interpreter' }] }],
      }),
    ).toMatchObject({ param: 'attachments[0].tools[0].type', code: 'invalid_value' });
    expect(
      await refused(`/v1/threads/${thread.id}/messages`, {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'https://x' } }],
      }),
    ).toMatchObject({ param: 'content[0].type' });
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    expect(await refused(`/v1/threads/${thread.id}/runs`, { assistant_id: assistant.id, max_prompt_tokens: 100 })).toMatchObject({
      message: "Invalid 'max_prompt_tokens': expected an integer >= 256.",
      param: 'max_prompt_tokens',
    });
    expect((await client.beta.threads.messages.list(thread.id)).data).toEqual([]);
    expect((await client.beta.threads.runs.list(thread.id)).data).toEqual([]);
    const steps = await server.request(`/v1/threads/${thread.id}/runs/run_x/steps?include[]=step_details.other`);
    expect(steps.status).toBe(400);
    expect((await json<ErrorBody>(steps)).error.param).toBe('include[][0]');
  });

  it('manages threads and messages', async () => {
    const { client } = bed;
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Hello' }], metadata: { a: '1' } });
    expect(thread).toMatchObject({ object: 'thread', metadata: { a: '1' } });
    const message = await client.beta.threads.messages.create(thread.id, { role: 'user', content: [{ type: 'text', text: 'Second' }] });
    expect(message).toMatchObject({ object: 'thread.message', thread_id: thread.id, role: 'user', status: 'completed' });
    expect(message.content).toEqual([{ type: 'text', text: { value: 'Second', annotations: [] } }]);
    const page = await client.beta.threads.messages.list(thread.id, { order: 'asc' });
    expect(page.data.map((m) => (m.content[0] as any).text.value)).toEqual(['Hello', 'Second']);
    const updated = await client.beta.threads.messages.update(message.id, { thread_id: thread.id, metadata: { k: 'v' } });
    expect(updated.metadata).toEqual({ k: 'v' });
    await client.beta.threads.messages.delete(message.id, { thread_id: thread.id });
    expect((await client.beta.threads.messages.list(thread.id)).data).toHaveLength(1);
    expect((await client.beta.threads.update(thread.id, { metadata: { b: '2' } })).metadata).toEqual({ b: '2' });
    expect(await client.beta.threads.delete(thread.id)).toMatchObject({ deleted: true });
    await expect(client.beta.threads.retrieve(thread.id)).rejects.toMatchObject({ status: 404 });
  });

  it('round-trips a function tool through requires_action and submit_tool_outputs (polling and streaming)', async () => {
    const { client, upstream } = bed;
    bed.behave((request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { content: `It is ${last.content} in Lisbon.` };
      return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] };
    });
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL, tools: [weatherTool] });
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'Weather?' }] });
    const paused = await client.beta.threads.runs.createAndPoll(thread.id, { assistant_id: assistant.id });
    expect(paused.status).toBe('requires_action');
    const call = paused.required_action!.submit_tool_outputs.tool_calls[0]!;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Lisbon"}' });
    const before = upstream.requests.length;
    const done = await client.beta.threads.runs.submitToolOutputsAndPoll(paused.id, {
      thread_id: thread.id,
      tool_outputs: [{ tool_call_id: call.id, output: 'sunny' }],
    });
    expect(done.status).toBe('completed');
    expect(upstream.requests[before].messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: call.id, content: 'sunny' });
    const steps = await client.beta.threads.runs.steps.list(done.id, { thread_id: thread.id, order: 'asc' });
    expect(steps.data[0]!.step_details).toMatchObject({
      type: 'tool_calls',
      tool_calls: [{ type: 'function', function: { name: 'get_weather', output: 'sunny' } }],
    });

    // The same with streams: the first stream ends at requires_action, submit streams the rest.
    const first = client.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id });
    const events: string[] = [];
    const streamed: Array<{ event: string; data: unknown }> = [];
    first.on('event', (event) => {
      events.push(event.event);
      streamed.push(structuredClone(event));
    });
    const pausedRun = await first.finalRun();
    expect(pausedRun.status).toBe('requires_action');
    expect(events.at(-1)).toBe('thread.run.requires_action');
    const second = client.beta.threads.runs.submitToolOutputsStream(pausedRun.id, {
      thread_id: thread.id,
      tool_outputs: [{ tool_call_id: pausedRun.required_action!.submit_tool_outputs.tool_calls[0]!.id, output: 'rainy' }],
    });
    let text = '';
    second.on('textDelta', (delta) => (text += delta.value));
    second.on('event', (event) => streamed.push(structuredClone(event)));
    const messages = await second.finalMessages();
    expect(text).toBe('It is rainy in Lisbon.');
    expect((messages[0]!.content[0] as any).text.value).toBe('It is rainy in Lisbon.');
    expect((await second.finalRun()).status).toBe('completed');
    expect(streamed.map((event) => event.event)).toContain('thread.run.step.delta');
    expect(undeclaredStreamEvents(streamed)).toEqual([]);
  });

  it('sends OpenAI assistant events as SSE, ending with event: done / data: [DONE]', async () => {
    const { client, server } = bed;
    bed.behave(() => ({ content: 'Hello there friend' }));
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    const response = await server.request('/v1/threads/runs', {
      method: 'POST',
      json: { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'hi' }] }, stream: true },
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const body = await response.text();
    const events = [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events.filter((name) => name !== 'thread.message.delta')).toEqual([
      'thread.created',
      'thread.run.created',
      'thread.run.queued',
      'thread.run.in_progress',
      'thread.run.step.created',
      'thread.run.step.in_progress',
      'thread.message.created',
      'thread.message.in_progress',
      'thread.message.completed',
      'thread.run.step.completed',
      'thread.run.completed',
      'done',
    ]);
    expect(events.filter((name) => name === 'thread.message.delta').length).toBeGreaterThan(1);
    expect(body.trimEnd().endsWith('event: done\ndata: [DONE]')).toBe(true);
    // Every event is what the routes declare as their `schema.stream` (/v1/openapi.json).
    expect(undeclaredStreamEvents(parseSse(body))).toEqual([]);
  });

  it('cancels a run while the model is still answering', async () => {
    const { client } = bed;
    bed.behave(() => ({ content: 'never', delayMs: 20_000 }));
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    const run = await client.beta.threads.createAndRun({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await waitForStatus(client, run, 'in_progress');
    const cancelling = await client.beta.threads.runs.cancel(run.id, { thread_id: run.thread_id });
    expect(['cancelling', 'cancelled']).toContain(cancelling.status);
    const final = await client.beta.threads.runs.poll(run.id, { thread_id: run.thread_id }, { pollIntervalMs: 20 });
    expect(final.status).toBe('cancelled');
    await expect(client.beta.threads.runs.cancel(run.id, { thread_id: run.thread_id })).rejects.toMatchObject({ status: 400 });
  });

  it('fails the run with the provider message when the model errors (429 -> rate_limit_exceeded)', async () => {
    const { client } = bed;
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    bed.behave(() => ({ error: { status: 429, message: 'Too many requests, slow down' } }));
    const limited = await client.beta.threads.createAndRunPoll({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(limited.status).toBe('failed');
    expect(limited.last_error?.code).toBe('rate_limit_exceeded');
    expect(limited.last_error?.message).toContain('Too many requests, slow down');
    bed.behave(() => ({ error: { status: 500, message: 'model exploded' } }));
    const stream = client.beta.threads.createAndRunStream({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    const failed = await stream.finalRun();
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatchObject({ code: 'server_error', message: expect.stringContaining('model exploded') });
  });
});

describe('restart', () => {
  it('resumes a run interrupted by a stop after restart, asking the model again only for the turn in flight', async () => {
    const bed = await startAssistantsTestBed(() => ({ content: 'slow', delayMs: 20_000 }));
    const { client, upstream } = bed;
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    const run = await client.beta.threads.createAndRun({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await waitForStatus(client, run, 'in_progress');
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await bed.server.close({ keepData: true });
    const restarted = await startAssistantsTestBed(undefined, { dataDir: bed.server.dataDir, env: {} });
    try {
      // The new process serves the same data but another upstream: the stopped server's upstream must not be asked again.
      restarted.behave(() => ({ content: 'Hello again after the restart.' }));
      const done = await restarted.client.beta.threads.runs.poll(run.id, { thread_id: run.thread_id }, { pollIntervalMs: 20 });
      expect(done.status).toBe('completed');
      expect(upstream.requests).toHaveLength(1);
      expect(restarted.upstream.requests).toHaveLength(1);
      const messages = await restarted.client.beta.threads.messages.list(run.thread_id, { order: 'asc' });
      expect(messages.data.map((message) => (message.content[0] as { text: { value: string } }).text.value)).toEqual([
        'hi',
        'Hello again after the restart.',
      ]);
    } finally {
      await restarted.close();
      await bed.upstream.close();
    }
  });
});
