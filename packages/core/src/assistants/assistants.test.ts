import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UpstreamError } from '../errors';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import type { ChatRequest } from '../models/types';
import type { SearchHit, StoreSearcher } from '../vector/types';
import { type AssistantsCapability, createAssistants } from './create-assistants';
import { collect, fakeChat, fakeSearcher, hit, searchThenCite, type Turn, undeclaredEvents, waitFor } from './assistant-test-fakes';
import { assistantsSchema } from './schema';
import type { ThreadStores } from './thread-stores';
import { FILE_SEARCH_CONTENT_INCLUDE, type Run } from './types';
import type { MessageCreateParams } from './wire/messages';

const ACCOUNT = 'acct_test';

/** ThreadStores over an in-memory set of `account:id` pairs; records the stores it creates and the files it adds. */
function fakeStores(owned: string[]) {
  const known = new Set(owned);
  const created: Array<{ id: string; name: string; fileIds: string[] }> = [];
  const added: Array<{ storeId: string; fileIds: string[] }> = [];
  const check = (kind: string) => (accountId: string, ids: readonly string[], param: string) => {
    for (const id of ids) if (!known.has(`${accountId}:${id}`)) throw new NotFoundError(kind, id, param);
  };
  const stores: ThreadStores = {
    checkStores: check('vector store'),
    checkFiles: check('file'),
    createStore(accountId, input) {
      const id = `vs_thread${created.length}`;
      known.add(`${accountId}:${id}`);
      created.push({ id, name: input.name, fileIds: [...input.fileIds] });
      return id;
    },
    addFiles(_accountId, storeId, fileIds) {
      added.push({ storeId, fileIds: [...fileIds] });
    },
  };
  return { stores, created, added };
}

afterAll(closeTestPostgres);

describe.each(testBackends())('assistants capability on %s', (backend) => {
  let db: SqlDatabase;
  let api: AssistantsCapability;
  afterEach(async () => {
    await api?.close();
    await db?.close();
  });

  async function setup(
    script: (request: ChatRequest, index: number) => Turn,
    stores: Record<string, SearchHit[]> = {},
    options: { maxToolRounds?: number; runExpirySeconds?: number; stores?: ThreadStores } = {},
  ) {
    db = await openTestDatabase(backend, [assistantsSchema]);
    const chat = fakeChat(script);
    const search = fakeSearcher(stores);
    api = createAssistants({ db, chat: chat.chat, searcher: search.searcher, ingestionWaitMs: 1234, ...options });
    api.start();
    return { chat, search };
  }

  it('searches the assistant and thread stores together, records results and cites the passage', async () => {
    const { chat, search } = await setup(searchThenCite, {
      vs_assistant: [hit('policy', 0.9, 'Refunds are processed within 14 days.'), hit('faq', 0.4)],
      vs_thread: [hit('notes', 0.7)],
    });
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      instructions: 'Answer from the documents.',
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: ['vs_assistant'] } },
    });
    const run = await api.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      thread: {
        messages: [{ role: 'user', content: 'How long do refunds take?' }],
        tool_resources: { file_search: { vector_store_ids: ['vs_thread'] } },
      },
    });
    expect(run.status).toBe('queued');
    const done = await waitFor(api, ACCOUNT, run);
    expect(done.status).toBe('completed');
    expect(done.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });

    expect(search.searches).toHaveLength(1);
    expect(search.searches[0]!.storeIds.sort()).toEqual(['vs_assistant', 'vs_thread']);
    expect(search.searches[0]!.options).toMatchObject({ query: 'refund policy', maxNumResults: 8 });
    expect(search.waits[0]).toEqual({ storeIds: expect.arrayContaining(['vs_assistant', 'vs_thread']), timeoutMs: 1234 });

    // The model was told about file_search as a function and received the passages with markers.
    expect(chat.requests[0]!.tools?.map((tool) => tool.function.name)).toEqual(['file_search']);
    expect(chat.requests[0]!.messages[0]).toMatchObject({ role: 'system' });
    expect(String(chat.requests[0]!.messages[0]!.content)).toContain('Answer from the documents.');
    const toolMessage = chat.requests[1]!.messages.at(-1)!;
    expect(toolMessage.role).toBe('tool');
    expect(String(toolMessage.content)).toContain('【0:0†policy.md】');
    expect(String(toolMessage.content)).toContain('Refunds are processed within 14 days.');

    const steps = await api.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, { order: 'asc' });
    expect(steps.data.map((step) => step.type)).toEqual(['tool_calls', 'message_creation']);
    const toolStep = steps.data[0]!;
    if (toolStep.step_details.type !== 'tool_calls') throw new Error('expected tool_calls');
    const call = toolStep.step_details.tool_calls[0]!;
    if (call.type !== 'file_search') throw new Error('expected file_search');
    expect(call.file_search.results!.map((r) => [r.file_name, r.score])).toEqual([
      ['policy.md', 0.9],
      ['notes.md', 0.7],
      ['faq.md', 0.4],
    ]);
    expect(call.file_search.results![0]).not.toHaveProperty('content');
    const withContent = await api.threads.runs.steps.retrieve(ACCOUNT, run.thread_id, run.id, toolStep.id, {
      include: [FILE_SEARCH_CONTENT_INCLUDE],
    });
    if (withContent.step_details.type !== 'tool_calls' || withContent.step_details.tool_calls[0]!.type !== 'file_search') throw new Error();
    expect(withContent.step_details.tool_calls[0]!.file_search.results![0]!.content).toEqual([
      { type: 'text', text: 'Refunds are processed within 14 days.' },
    ]);

    const messages = await api.threads.messages.list(ACCOUNT, run.thread_id, { order: 'asc' });
    const answer = messages.data[1]!;
    expect(answer).toMatchObject({ role: 'assistant', status: 'completed', run_id: run.id, assistant_id: assistant.id });
    const text = answer.content[0]!.text;
    expect(text.value).toBe('Refunds take 14 days【0:0†policy.md】.');
    expect(text.annotations).toEqual([
      { type: 'file_citation', text: '【0:0†policy.md】', start_index: 20, end_index: 35, file_citation: { file_id: 'file-policy' } },
    ]);
  });

  it('returns at most 8 passages, fewer with max_num_results, and honours score_threshold', async () => {
    const many = Array.from({ length: 20 }, (_, i) => hit(`doc${i}`, 1 - i * 0.04));
    const { search } = await setup(searchThenCite, { vs_big: many });
    const wide = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search', file_search: { max_num_results: 50 } }],
      tool_resources: { file_search: { vector_store_ids: ['vs_big'] } },
    });
    const first = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: wide.id, thread: { messages: [{ role: 'user', content: 'q' }] } }),
    );
    const resultsOf = async (run: Run) => {
      const step = (await api.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, { order: 'asc' })).data[0]!;
      if (step.step_details.type !== 'tool_calls' || step.step_details.tool_calls[0]!.type !== 'file_search') throw new Error();
      return step.step_details.tool_calls[0]!.file_search;
    };
    expect((await resultsOf(first)).results).toHaveLength(8);
    expect(search.searches[0]!.options.maxNumResults).toBe(8);

    const narrow = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search', file_search: { max_num_results: 3, ranking_options: { score_threshold: 0.5 } } }],
      tool_resources: { file_search: { vector_store_ids: ['vs_big'] } },
    });
    const second = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: narrow.id, thread: { messages: [{ role: 'user', content: 'q' }] } }),
    );
    expect((await resultsOf(second)).results).toHaveLength(3);

    const strict = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search', file_search: { ranking_options: { score_threshold: 0.9 } } }],
      tool_resources: { file_search: { vector_store_ids: ['vs_big'] } },
    });
    const third = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: strict.id, thread: { messages: [{ role: 'user', content: 'q' }] } }),
    );
    const strictResults = await resultsOf(third);
    expect(strictResults.results!.every((result) => result.score >= 0.9)).toBe(true);
    expect(strictResults.ranking_options!.score_threshold).toBe(0.9);
    expect(strictResults.results).toHaveLength(3);
  });

  it('pauses in requires_action for function tools and resumes with the outputs', async () => {
    const { chat } = await setup((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'tool') return { content: `It is ${last.content}.` };
      return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] };
    });
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
      ],
    });
    const thread = await api.threads.create(ACCOUNT, { messages: [{ role: 'user', content: 'Weather?' }] });
    await api.threads.messages.create(ACCOUNT, thread.id, { role: 'user', content: 'In Lisbon, please.' });
    const run = await api.threads.runs.create(ACCOUNT, thread.id, {
      assistant_id: assistant.id,
      additional_instructions: 'Be brief.',
      truncation_strategy: { type: 'last_messages', last_messages: 1 },
    });
    const paused = await waitFor(api, ACCOUNT, run);
    expect(paused.status).toBe('requires_action');
    expect(paused.instructions).toBe('Be brief.');
    const calls = paused.required_action!.submit_tool_outputs.tool_calls;
    expect(calls).toEqual([
      { id: expect.any(String), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } },
    ]);
    await expect(api.threads.messages.create(ACCOUNT, thread.id, { role: 'user', content: 'hello?' })).rejects.toThrow(/while a run/);
    await expect(api.threads.runs.submitToolOutputs(ACCOUNT, thread.id, run.id, { tool_outputs: [] })).rejects.toThrow(
      /Missing tool outputs/,
    );

    const resumed = await api.threads.runs.submitToolOutputs(ACCOUNT, thread.id, run.id, {
      tool_outputs: [{ tool_call_id: calls[0]!.id, output: 'sunny' }],
    });
    expect(resumed.status).toBe('queued');
    const done = await waitFor(api, ACCOUNT, run);
    expect(done.status).toBe('completed');
    expect(chat.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: calls[0]!.id, content: 'sunny' });
    // last_messages: 1 keeps only the latest thread message; instructions come first.
    expect(chat.requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'In Lisbon, please.' },
    ]);
    const step = (await api.threads.runs.steps.list(ACCOUNT, thread.id, run.id, { order: 'asc' })).data[0]!;
    expect(step.status).toBe('completed');
    expect(step.step_details).toMatchObject({
      type: 'tool_calls',
      tool_calls: [{ type: 'function', function: { name: 'get_weather', output: 'sunny' } }],
    });
    expect((await api.threads.messages.list(ACCOUNT, thread.id, { order: 'desc', limit: 1 })).data[0]!.content[0]!.text.value).toBe(
      'It is sunny.',
    );
  });

  it('fails the run with a clear last_error when the tool rounds exceed the cap', async () => {
    await setup(() => ({ toolCalls: [{ name: 'file_search', arguments: { query: 'again' } }] }), {}, { maxToolRounds: 3 });
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model', tools: [{ type: 'file_search' }] });
    const done = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'loop' }] } }),
    );
    expect(done.status).toBe('failed');
    expect(done.last_error).toEqual({ code: 'server_error', message: expect.stringContaining('3 rounds of tool calls') });
    expect(done.failed_at).toEqual(expect.any(Number));
  });

  it('turns model errors into failed runs with the provider message (429 -> rate_limit_exceeded)', async () => {
    let error: Error = new UpstreamError("Provider 'fake' answered 429: slow down", { statusCode: 429 });
    await setup(() => ({ error }));
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model' });
    const limited = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'hi' }] } }),
    );
    expect(limited.status).toBe('failed');
    expect(limited.last_error).toEqual({ code: 'rate_limit_exceeded', message: "Provider 'fake' answered 429: slow down" });
    error = new UpstreamError("Provider 'fake' answered 500: boom", { statusCode: 500 });
    const broken = await waitFor(
      api,
      ACCOUNT,
      await api.threads.createAndRun(ACCOUNT, { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'hi' }] } }),
    );
    expect(broken.last_error).toEqual({ code: 'server_error', message: "Provider 'fake' answered 500: boom" });
  });

  it('cancels an in-progress run (cancelling -> cancelled) and refuses to cancel a finished one', async () => {
    await setup(() => ({ hang: true }));
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model' });
    const run = await api.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    await waitFor(api, ACCOUNT, run, ['in_progress']);
    const cancelling = await api.threads.runs.cancel(ACCOUNT, run.thread_id, run.id);
    expect(cancelling.status).toBe('cancelling');
    const done = await waitFor(api, ACCOUNT, run);
    expect(done.status).toBe('cancelled');
    expect(done.cancelled_at).toEqual(expect.any(Number));
    await expect(api.threads.runs.cancel(ACCOUNT, run.thread_id, run.id)).rejects.toThrow(/Cannot cancel run with status 'cancelled'/);
  });

  it('streams OpenAI assistant events in order, ending with done', async () => {
    const { chat } = await setup(searchThenCite, { vs_a: [hit('policy', 0.8)] });
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: ['vs_a'] } },
    });
    const events = await collect(
      await api.threads.createAndRunStream(
        ACCOUNT,
        { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'refunds?' }] } },
        { include: [FILE_SEARCH_CONTENT_INCLUDE] },
      ),
    );
    expect(chat.calls.stream).toBe(2);
    const names = events.map((event) => event.event).filter((name) => name !== 'thread.message.delta' && name !== 'thread.run.step.delta');
    expect(names).toEqual([
      'thread.created',
      'thread.run.created',
      'thread.run.queued',
      'thread.run.in_progress',
      'thread.run.step.created',
      'thread.run.step.in_progress',
      'thread.run.step.completed',
      'thread.run.step.created',
      'thread.run.step.in_progress',
      'thread.message.created',
      'thread.message.in_progress',
      'thread.message.completed',
      'thread.run.step.completed',
      'thread.run.completed',
      'done',
    ]);
    const deltas = events.flatMap((event) =>
      event.event === 'thread.message.delta' ? (event.data.delta.content ?? []).map((part) => part.text?.value) : [],
    );
    expect(deltas.join('')).toBe('Refunds take 14 days【0:0†policy.md】.');
    const toolStep = events.find((event) => event.event === 'thread.run.step.completed');
    if (toolStep?.event !== 'thread.run.step.completed' || toolStep.data.step_details.type !== 'tool_calls')
      throw new Error('no tool step');
    const search = toolStep.data.step_details.tool_calls[0]!;
    expect(search.type === 'file_search' && search.file_search.results?.[0]).toMatchObject({
      file_name: 'policy.md',
      score: 0.8,
      content: [{ type: 'text' }],
    });
    const completed = events.find((event) => event.event === 'thread.message.completed');
    expect(completed?.event === 'thread.message.completed' && completed.data.content[0]!.text.annotations).toHaveLength(1);
    expect(events.at(-1)).toEqual({ event: 'done', data: '[DONE]' });
    expect(undeclaredEvents(events)).toEqual([]);
  });

  it('expires a run left in requires_action past expires_at, and allows one active run per thread', async () => {
    await setup(() => ({ toolCalls: [{ name: 'lookup', arguments: {} }] }), {}, { runExpirySeconds: -1 });
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'function', function: { name: 'lookup' } }],
    });
    const thread = await api.threads.create(ACCOUNT, { messages: [{ role: 'user', content: 'x' }] });
    const run = await api.threads.runs.create(ACCOUNT, thread.id, { assistant_id: assistant.id });
    await expect(api.threads.runs.create(ACCOUNT, thread.id, { assistant_id: assistant.id })).rejects.toThrow(/while a run/);
    const expired = await waitFor(api, ACCOUNT, run);
    expect(expired.status).toBe('expired');
    await expect(api.threads.runs.submitToolOutputs(ACCOUNT, thread.id, run.id, { tool_outputs: [] })).rejects.toThrow(/status 'expired'/);
    const step = (await api.threads.runs.steps.list(ACCOUNT, thread.id, run.id, {})).data[0]!;
    expect(step.status).toBe('expired');
  });

  it("uses createAndRun's tool_resources instead of the assistant's stores, plus the thread's", async () => {
    const { search } = await setup(searchThenCite, {
      vs_override: [hit('o', 0.5)],
      vs_thread: [hit('t', 0.6)],
      vs_assistant: [hit('a', 0.9)],
    });
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: ['vs_assistant'] } },
    });
    const run = await api.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      tool_resources: { file_search: { vector_store_ids: ['vs_override'] } },
      thread: { messages: [{ role: 'user', content: 'q' }], tool_resources: { file_search: { vector_store_ids: ['vs_thread'] } } },
    });
    expect((await waitFor(api, ACCOUNT, run)).status).toBe('completed');
    expect(search.searches[0]!.storeIds.sort()).toEqual(['vs_override', 'vs_thread']);
  });

  it('waits for stores still ingesting before it searches', async () => {
    await setup(searchThenCite);
    let ingested = false;
    const waited: number[] = [];
    const searcher: StoreSearcher = {
      async search() {
        return ingested ? [hit('late', 0.8)] : [];
      },
      async waitForIngestion(_accountId, _storeIds, timeoutMs) {
        waited.push(timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, 30));
        ingested = true;
        return true;
      },
    };
    const slow = createAssistants({ db, chat: fakeChat(searchThenCite).chat, searcher });
    try {
      const assistant = await slow.assistants.create(ACCOUNT, {
        model: 'fake/model',
        tools: [{ type: 'file_search' }],
        tool_resources: { file_search: { vector_store_ids: ['vs_new'] } },
      });
      const run = await waitFor(
        slow,
        ACCOUNT,
        await slow.threads.createAndRun(ACCOUNT, { assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'q' }] } }),
      );
      expect(waited).toEqual([60_000]);
      const step = (await slow.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, { order: 'asc' })).data[0]!;
      expect(step.step_details).toMatchObject({ tool_calls: [{ file_search: { results: [{ file_name: 'late.md' }] } }] });
    } finally {
      await slow.close();
    }
  });

  it('refuses store and file ids of another account when they are saved, with 404 naming the field, and writes nothing', async () => {
    const { stores, created } = fakeStores([
      `${ACCOUNT}:vs_mine`,
      `${ACCOUNT}:file-mine`,
      'acct_other:vs_theirs',
      'acct_other:file-theirs',
    ]);
    await setup(() => ({ content: 'hi' }), {}, { stores });
    const notFound = (param: string, id: string) =>
      expect.objectContaining({ status: 404, param, message: expect.stringContaining(`'${id}'`) });
    const foreignStores = { file_search: { vector_store_ids: ['vs_mine', 'vs_theirs'] } };
    await expect(api.assistants.create(ACCOUNT, { model: 'fake/model', tool_resources: foreignStores })).rejects.toEqual(
      notFound('tool_resources.file_search.vector_store_ids', 'vs_theirs'),
    );
    const assistant = await api.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tool_resources: { file_search: { vector_store_ids: ['vs_mine'] } },
    });
    await expect(api.assistants.update(ACCOUNT, assistant.id, { tool_resources: foreignStores })).rejects.toEqual(
      notFound('tool_resources.file_search.vector_store_ids', 'vs_theirs'),
    );
    expect((await api.assistants.retrieve(ACCOUNT, assistant.id)).tool_resources).toEqual({
      file_search: { vector_store_ids: ['vs_mine'] },
    });
    await expect(api.threads.create(ACCOUNT, { tool_resources: { file_search: { vector_store_ids: ['vs_unknown'] } } })).rejects.toEqual(
      notFound('tool_resources.file_search.vector_store_ids', 'vs_unknown'),
    );
    const attach = (file_id: string): MessageCreateParams => ({
      role: 'user',
      content: 'see file',
      attachments: [{ file_id, tools: [{ type: 'file_search' }] }],
    });
    await expect(api.threads.create(ACCOUNT, { messages: [attach('file-mine'), attach('file-theirs')] })).rejects.toEqual(
      notFound('messages[1].attachments[0].file_id', 'file-theirs'),
    );
    await expect(
      api.threads.createAndRun(ACCOUNT, { assistant_id: assistant.id, thread: { messages: [attach('file-theirs')] } }),
    ).rejects.toEqual(notFound('thread.messages[0].attachments[0].file_id', 'file-theirs'));
    await expect(
      api.threads.createAndRun(ACCOUNT, {
        assistant_id: assistant.id,
        tool_resources: { file_search: { vector_store_ids: ['vs_theirs'] } },
      }),
    ).rejects.toEqual(notFound('tool_resources.file_search.vector_store_ids', 'vs_theirs'));
    const thread = await api.threads.create(ACCOUNT, {});
    await expect(api.threads.messages.create(ACCOUNT, thread.id, attach('file-theirs'))).rejects.toEqual(
      notFound('attachments[0].file_id', 'file-theirs'),
    );
    expect((await api.threads.messages.list(ACCOUNT, thread.id, {})).data).toEqual([]);
    expect(created).toEqual([]);
  });

  it("puts files attached with file_search into the thread's vector store, created on demand, and searches it", async () => {
    const { stores, created, added } = fakeStores([`${ACCOUNT}:file-a`, `${ACCOUNT}:file-b`, `${ACCOUNT}:file-c`]);
    const { search } = await setup(searchThenCite, { vs_thread0: [hit('a', 0.8)] }, { stores });
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model', tools: [{ type: 'file_search' }] });
    const thread = await api.threads.create(ACCOUNT, {
      messages: [{ role: 'user', content: 'read this', attachments: [{ file_id: 'file-a', tools: [{ type: 'file_search' }] }] }],
    });
    expect(created).toEqual([{ id: 'vs_thread0', name: expect.stringContaining(thread.id), fileIds: ['file-a'] }]);
    expect(thread.tool_resources).toEqual({ file_search: { vector_store_ids: ['vs_thread0'] } });
    await api.threads.messages.create(ACCOUNT, thread.id, {
      role: 'user',
      content: 'and these',
      attachments: [
        { file_id: 'file-b', tools: [{ type: 'file_search' }] },
        { file_id: 'file-c', tools: [] },
      ],
    });
    expect(added).toEqual([{ storeId: 'vs_thread0', fileIds: ['file-b'] }]);
    expect(created).toHaveLength(1);
    const done = await waitFor(api, ACCOUNT, await api.threads.runs.create(ACCOUNT, thread.id, { assistant_id: assistant.id }));
    expect(done.status).toBe('completed');
    expect(search.searches[0]!.storeIds).toEqual(['vs_thread0']);
    const messages = await api.threads.messages.list(ACCOUNT, thread.id, { order: 'asc' });
    expect(messages.data[1]!.attachments).toEqual([
      { file_id: 'file-b', tools: [{ type: 'file_search' }] },
      { file_id: 'file-c', tools: [] },
    ]);
  });

  it('ends a run incomplete when max_completion_tokens is reached, giving each turn what is left of it', async () => {
    const { chat } = await setup((request) => {
      const question = String(request.messages.find((message) => message.role === 'user')?.content);
      if (question === 'again')
        return { toolCalls: [{ name: 'file_search', arguments: {} }], usage: { prompt_tokens: 1, completion_tokens: 300 } };
      return request.messages.at(-1)!.role === 'tool'
        ? { content: 'A long answer that was cut', finishReason: 'length', usage: { prompt_tokens: 60, completion_tokens: 56 } }
        : { toolCalls: [{ name: 'file_search', arguments: { query: 'q' } }], usage: { prompt_tokens: 50, completion_tokens: 200 } };
    });
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model', tools: [{ type: 'file_search' }] });
    const run = await api.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      max_completion_tokens: 256,
      thread: { messages: [{ role: 'user', content: 'q' }] },
    });
    const done = await waitFor(api, ACCOUNT, run);
    expect(done).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_completion_tokens' } });
    expect(done.usage).toEqual({ prompt_tokens: 110, completion_tokens: 256, total_tokens: 366 });
    expect(chat.requests.map((request) => request.max_tokens)).toEqual([256, 56]);
    const answer = (await api.threads.messages.list(ACCOUNT, run.thread_id, { order: 'desc', limit: 1 })).data[0]!;
    expect(answer).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_tokens' } });
    expect(answer.content[0]!.text.value).toBe('A long answer that was cut');

    // A run whose first turn spends its whole budget asks the model no more.
    chat.requests.length = 0;
    const spent = await api.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      max_completion_tokens: 256,
      thread: { messages: [{ role: 'user', content: 'again' }] },
    });
    expect(await waitFor(api, ACCOUNT, spent)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_completion_tokens' },
    });
    expect(chat.requests).toHaveLength(1);
  });

  it('applies max_prompt_tokens: the oldest messages are left out to fit, and a run that cannot fit ends incomplete', async () => {
    const { chat } = await setup(() => ({ content: 'ok' }));
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model' });
    const long = (n: number) => `message ${n}: ${'lorem ipsum dolor sit amet '.repeat(12)}`;
    const thread = await api.threads.create(ACCOUNT, { messages: [1, 2, 3, 4, 5].map((n) => ({ role: 'user', content: long(n) })) });
    const fitted = await waitFor(
      api,
      ACCOUNT,
      await api.threads.runs.create(ACCOUNT, thread.id, { assistant_id: assistant.id, max_prompt_tokens: 300 }),
    );
    expect(fitted.status).toBe('completed');
    const sent = chat.requests[0]!.messages.map((message) => String(message.content).slice(0, 10));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(5);
    expect(sent.at(-1)).toBe('message 5:');

    const huge = await api.threads.create(ACCOUNT, { messages: [{ role: 'user', content: 'word '.repeat(400) }] });
    const cut = await waitFor(
      api,
      ACCOUNT,
      await api.threads.runs.create(ACCOUNT, huge.id, { assistant_id: assistant.id, max_prompt_tokens: 256 }),
    );
    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_prompt_tokens' } });
    expect(chat.requests).toHaveLength(1);
  });

  it('creates one run of two started on one thread at once, with only its own additional message', async () => {
    await setup(() => ({ hang: true }));
    const assistant = await api.assistants.create(ACCOUNT, { model: 'fake/model' });
    const thread = await api.threads.create(ACCOUNT, {});
    const start = (text: string) =>
      api.threads.runs.create(ACCOUNT, thread.id, { assistant_id: assistant.id, additional_messages: [{ role: 'user', content: text }] });
    const results = await Promise.allSettled([start('first'), start('second')]);
    const created = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({ status: 400, code: 'thread_busy' });
    const messages = await api.threads.messages.list(ACCOUNT, thread.id, {});
    const winner = results[0]!.status === 'fulfilled' ? 'first' : 'second';
    expect(messages.data.map((message) => message.content[0]!.text.value)).toEqual([winner]);
  });
});
