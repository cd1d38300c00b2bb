import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MODEL, searchThenCite, startAssistantsTestBed, type AssistantsTestBed } from './assistants-fake-model';
import { json } from './harness';

const CONTENT_INCLUDE = 'step_details.tool_calls[*].file_search.results[*].content' as const;

const POLICY = 'Refund policy. Customers receive refunds within 14 days of the return arriving at our warehouse.';
const SHIPPING = 'Shipping policy. Orders ship within 2 business days; refunds for shipping fees follow the refund policy.';

describe('assistants with file_search over real vector stores', () => {
  let bed: AssistantsTestBed;
  beforeAll(async () => {
    bed = await startAssistantsTestBed(searchThenCite);
  });
  afterAll(() => bed.close());

  async function upload(name: string, text: string) {
    return bed.client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'assistants' });
  }

  /** Store with files, polled until every file is `completed` (the spec's order). */
  async function storeWith(files: Array<[string, string]>) {
    const store = await bed.client.vectorStores.create({ name: `store-${Math.random().toString(36).slice(2, 6)}` });
    const ids: string[] = [];
    for (const [name, text] of files) {
      const file = await upload(name, text);
      await bed.client.vectorStores.files.create(store.id, { file_id: file.id });
      ids.push(file.id);
    }
    for (const id of ids) {
      const done = await bed.client.vectorStores.files.poll(store.id, id, { pollIntervalMs: 50 });
      expect(done.status).toBe('completed');
    }
    return { store, fileIds: ids };
  }

  it('follows the end-to-end order: assistant, upload, store, add, poll, set vector_store_ids, run', async () => {
    const { client } = bed;
    const assistant = await client.beta.assistants.create({
      model: FAKE_MODEL,
      name: 'Support',
      instructions: 'Answer questions about our policies.',
      tools: [{ type: 'file_search' }],
    });
    const { store, fileIds } = await storeWith([
      ['refunds.md', POLICY],
      ['shipping.md', SHIPPING],
    ]);
    await client.beta.assistants.update(assistant.id, { tool_resources: { file_search: { vector_store_ids: [store.id] } } });

    const run = await client.beta.threads.createAndRunPoll(
      { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'How long do refunds take?' }] } },
      { pollIntervalMs: 50 },
    );
    expect(run.status).toBe('completed');
    expect(run.usage?.total_tokens).toBeGreaterThan(0);

    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
    expect(steps.data.map((step) => step.type)).toEqual(['tool_calls', 'message_creation']);
    const details = steps.data[0]!.step_details;
    if (details.type !== 'tool_calls') throw new Error('expected tool_calls');
    const call = details.tool_calls[0]!;
    if (call.type !== 'file_search') throw new Error('expected a file_search call');
    expect(call.file_search.results!.length).toBeGreaterThan(0);
    for (const result of call.file_search.results!) {
      expect(fileIds).toContain(result.file_id);
      expect(['refunds.md', 'shipping.md']).toContain(result.file_name);
      expect(result.score).toBeGreaterThan(0);
      expect(result.score).toBeLessThanOrEqual(1);
      expect(result.content).toBeUndefined();
    }
    const withContent = await client.beta.threads.runs.steps.retrieve(steps.data[0]!.id, {
      thread_id: run.thread_id,
      run_id: run.id,
      include: [CONTENT_INCLUDE],
    });
    const included = (withContent.step_details as any).tool_calls[0].file_search.results;
    expect(included[0].content[0]).toMatchObject({ type: 'text', text: expect.any(String) });

    // The model was given the passages with their file names and markers.
    const fed = bed.upstream.requests.at(-1).messages.find((message: any) => message.role === 'tool');
    expect(fed.content).toMatch(/【0:0†(refunds|shipping)\.md】/);
    expect(fed.content).toContain('refunds within 14 days');

    const messages = await client.beta.threads.messages.list(run.thread_id, { order: 'desc', limit: 1 });
    const text = (messages.data[0]!.content[0] as any).text;
    expect(text.value).toMatch(/^According to the documents, refunds take 14 days【0:0†.+】\.$/);
    expect(text.annotations).toHaveLength(1);
    const annotation = text.annotations[0];
    expect(annotation).toMatchObject({ type: 'file_citation', file_citation: { file_id: call.file_search.results![0]!.file_id } });
    expect(text.value.slice(annotation.start_index, annotation.end_index)).toBe(annotation.text);
  });

  it('streams with the SDK helpers: textDelta events and finalMessages with citations', async () => {
    const { client } = bed;
    const { store, fileIds } = await storeWith([['refunds.md', POLICY]]);
    const assistant = await client.beta.assistants.create({
      model: FAKE_MODEL,
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: [store.id] } },
    });
    const stream = client.beta.threads.createAndRunStream({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'refund timing?' }] },
    });
    let text = '';
    const toolCalls: string[] = [];
    stream.on('textDelta', (delta) => (text += delta.value ?? ''));
    stream.on('toolCallCreated', (call) => toolCalls.push(call.type));
    const messages = await stream.finalMessages();
    const run = await stream.finalRun();
    expect(run.status).toBe('completed');
    expect(run.usage?.total_tokens).toBeGreaterThan(0);
    expect(toolCalls).toEqual(['file_search']);
    expect(text).toMatch(/refunds take 14 days【0:0†refunds\.md】\.$/);
    const content = (messages.at(-1)!.content[0] as any).text;
    expect(content.value).toBe(text);
    expect(content.annotations[0].file_citation.file_id).toBe(fileIds[0]);
    const steps = await stream.finalRunSteps();
    const search = steps.find((step) => step.type === 'tool_calls')!.step_details as any;
    expect(search.tool_calls[0].file_search.results[0]).toMatchObject({
      file_id: fileIds[0],
      file_name: 'refunds.md',
      score: expect.any(Number),
    });

    expect(search.tool_calls[0].file_search.results[0].content).toBeUndefined();

    // runs.stream on an existing thread works the same way; include[] (a query parameter) adds the passages' text to its steps.
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: 'and refunds again?' }] });
    const again = client.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id, include: [CONTENT_INCLUDE] });
    expect((await again.finalRun()).status).toBe('completed');
    const included = (await again.finalRunSteps()).find((step) => step.type === 'tool_calls')!.step_details;
    if (included.type !== 'tool_calls' || included.tool_calls[0]!.type !== 'file_search') throw new Error('expected a file_search call');
    expect(included.tool_calls[0]!.file_search.results![0]!.content![0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Refund'),
    });
  });

  it("searches the thread's stores together with the assistant's", async () => {
    const { client } = bed;
    const assistantStore = await storeWith([['refunds.md', POLICY]]);
    const threadStore = await storeWith([['shipping.md', SHIPPING]]);
    const assistant = await client.beta.assistants.create({
      model: FAKE_MODEL,
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: [assistantStore.store.id] } },
    });
    const run = await client.beta.threads.createAndRunPoll(
      {
        assistant_id: assistant.id,
        thread: {
          messages: [{ role: 'user', content: 'refunds policy shipping' }],
          tool_resources: { file_search: { vector_store_ids: [threadStore.store.id] } },
        },
      },
      { pollIntervalMs: 50 },
    );
    expect(run.status).toBe('completed');
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
    const results = (steps.data[0]!.step_details as any).tool_calls[0].file_search.results;
    const files = new Set(results.map((result: any) => result.file_id));
    expect(files).toEqual(new Set([assistantStore.fileIds[0], threadStore.fileIds[0]]));
  });

  it('returns at most 8 passages per search, fewer when max_num_results says so', async () => {
    const { client } = bed;
    const files: Array<[string, string]> = Array.from({ length: 12 }, (_, i) => [
      `note-${i}.txt`,
      `Refund note ${i}: refunds within 14 days for order ${i}.`,
    ]);
    const { store } = await storeWith(files);
    const resultsFor = async (maxNumResults?: number) => {
      const assistant = await client.beta.assistants.create({
        model: FAKE_MODEL,
        tools: [{ type: 'file_search', ...(maxNumResults ? { file_search: { max_num_results: maxNumResults } } : {}) }],
        tool_resources: { file_search: { vector_store_ids: [store.id] } },
      });
      const run = await client.beta.threads.createAndRunPoll(
        { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'refund note refunds order' }] } },
        { pollIntervalMs: 50 },
      );
      expect(run.status).toBe('completed');
      const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
      return (steps.data[0]!.step_details as any).tool_calls[0].file_search.results as unknown[];
    };
    expect(await resultsFor()).toHaveLength(8);
    expect(await resultsFor(50)).toHaveLength(8);
    expect(await resultsFor(3)).toHaveLength(3);
  });

  it('waits for a store that is still ingesting instead of missing its files', async () => {
    const { client } = bed;
    const store = await client.vectorStores.create({ name: 'fresh' });
    const file = await upload('fresh.md', POLICY);
    await client.vectorStores.files.create(store.id, { file_id: file.id });
    // No polling: the run starts while the file may still be ingesting.
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL, tools: [{ type: 'file_search' }] });
    const run = await client.beta.threads.createAndRunPoll(
      {
        assistant_id: assistant.id,
        thread: { messages: [{ role: 'user', content: 'refunds' }], tool_resources: { file_search: { vector_store_ids: [store.id] } } },
      },
      { pollIntervalMs: 50 },
    );
    expect(run.status).toBe('completed');
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
    expect((steps.data[0]!.step_details as any).tool_calls[0].file_search.results[0].file_id).toBe(file.id);
  });

  it("indexes files attached to messages in the thread's own vector store, created on demand, and cites them", async () => {
    const { client } = bed;
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL, tools: [{ type: 'file_search' }] });
    const file = await upload('refunds.md', POLICY);
    const run = await client.beta.threads.createAndRunPoll(
      {
        assistant_id: assistant.id,
        thread: {
          messages: [
            { role: 'user', content: 'How long do refunds take?', attachments: [{ file_id: file.id, tools: [{ type: 'file_search' }] }] },
          ],
        },
      },
      { pollIntervalMs: 50 },
    );
    expect(run.status).toBe('completed');
    const thread = await client.beta.threads.retrieve(run.thread_id);
    const storeIds = thread.tool_resources?.file_search?.vector_store_ids ?? [];
    expect(storeIds).toHaveLength(1);
    const store = await client.vectorStores.retrieve(storeIds[0]!);
    expect(store).toMatchObject({ file_counts: { completed: 1, total: 1 }, expires_after: { anchor: 'last_active_at', days: 7 } });
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' });
    const details = steps.data[0]!.step_details;
    if (details.type !== 'tool_calls' || details.tool_calls[0]!.type !== 'file_search') throw new Error('expected a file_search call');
    expect(details.tool_calls[0]!.file_search.results!.map((result) => result.file_id)).toContain(file.id);
    const messages = await client.beta.threads.messages.list(run.thread_id, { order: 'asc' });
    const answer = messages.data[1]!.content[0]!;
    if (answer.type !== 'text') throw new Error('expected text');
    expect(answer.text.annotations).toEqual([expect.objectContaining({ type: 'file_citation', file_citation: { file_id: file.id } })]);
  });

  it('refuses vector stores and files of another account when they are saved, exactly like unknown ids', async () => {
    const { client, server } = bed;
    const other = await server.newAccount();
    const theirStore = await other.client.vectorStores.create({ name: 'theirs' });
    const theirFile = await other.client.files.create({ file: await toFile(Buffer.from('secret'), 'secret.txt'), purpose: 'assistants' });
    const expectNotFound = async (call: Promise<unknown>, param: string, id: string) => {
      const error = await call.then(
        () => undefined,
        (caught) => caught,
      );
      expect(error?.status).toBe(404);
      expect(error.error).toMatchObject({ param, message: expect.stringContaining(`'${id}'`) });
    };
    for (const id of [theirStore.id, 'vs_does_not_exist']) {
      await expectNotFound(
        client.beta.assistants.create({ model: FAKE_MODEL, tool_resources: { file_search: { vector_store_ids: [id] } } }),
        'tool_resources.file_search.vector_store_ids',
        id,
      );
      await expectNotFound(
        client.beta.threads.create({ tool_resources: { file_search: { vector_store_ids: [id] } } }),
        'tool_resources.file_search.vector_store_ids',
        id,
      );
    }
    const thread = await client.beta.threads.create();
    for (const id of [theirFile.id, 'file-does-not-exist']) {
      await expectNotFound(
        client.beta.threads.messages.create(thread.id, {
          role: 'user',
          content: 'see attached',
          attachments: [{ file_id: id, tools: [{ type: 'file_search' }] }],
        }),
        'attachments[0].file_id',
        id,
      );
    }
    expect((await client.beta.threads.messages.list(thread.id)).data).toEqual([]);
    expect((await client.beta.threads.retrieve(thread.id)).tool_resources).toEqual({});

    // A run takes no `tool_resources` (createAndRun does, checked above): one sent anyway searches nothing of theirs.
    const theirPolicy = await other.client.files.create({ file: await toFile(Buffer.from(POLICY), 'theirs.md'), purpose: 'assistants' });
    await other.client.vectorStores.files.create(theirStore.id, { file_id: theirPolicy.id });
    expect((await other.client.vectorStores.files.poll(theirStore.id, theirPolicy.id, { pollIntervalMs: 50 })).status).toBe('completed');
    const searching = await client.beta.assistants.create({ model: FAKE_MODEL, tools: [{ type: 'file_search' }] });
    await client.beta.threads.messages.create(thread.id, { role: 'user', content: 'How long do refunds take?' });
    const response = await server.request(`/v1/threads/${thread.id}/runs`, {
      method: 'POST',
      json: { assistant_id: searching.id, tool_resources: { file_search: { vector_store_ids: [theirStore.id] } } },
    });
    expect(response.status).toBe(200);
    const run = await client.beta.threads.runs.poll(
      (await json<{ id: string }>(response)).id,
      { thread_id: thread.id },
      { pollIntervalMs: 50 },
    );
    expect(run.status).toBe('completed');
    const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: thread.id, order: 'asc' });
    const details = steps.data[0]!.step_details;
    if (details.type !== 'tool_calls' || details.tool_calls[0]!.type !== 'file_search') throw new Error('expected a file_search call');
    expect(details.tool_calls[0]!.file_search.results).toEqual([]);
  });
});
