import { afterAll, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../models/types';
import type { SqlDatabase } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import type { SearchHit, StoreSearcher } from '../vector/types';
import { type AssistantsCapability, createAssistants } from './create-assistants';
import { fakeChat, fakeSearcher, hit, searchThenCite, type Turn, undeclaredEvents, waitFor } from './assistant-test-fakes';
import { assistantsSchema } from './schema';
import type { AssistantStreamEvent, Run } from './types';

const ACCOUNT = 'acct_test';

afterAll(closeTestPostgres);

/**
 * Two runners on one database stand in for two processes. A process "dies" the way a killed one
 * leaves its runs: its lease is no longer its own and runs out (another owner that never renews),
 * so the dead process's runner loses the run at its next heartbeat and must not write it any more.
 */
describe.each(testBackends())('assistant run takeover on %s', (backend) => {
  async function setup(stores: Record<string, SearchHit[]> = { vs_a: [hit('policy', 0.9, 'Refunds take 14 days.')] }) {
    const db: SqlDatabase = await openTestDatabase(backend, [assistantsSchema]);
    const runners: AssistantsCapability[] = [];
    const make = (script: (request: ChatRequest, index: number) => Turn, searcher: StoreSearcher = fakeSearcher(stores).searcher) => {
      const chat = fakeChat(script);
      const runner = createAssistants({ db, chat: chat.chat, searcher, leaseMs: 300, pollMs: 20, ingestionWaitMs: 50 });
      runners.push(runner);
      return { runner, chat };
    };
    const kill = async (run: Run, attempts?: number) => {
      await db.run(`UPDATE runs SET lease_owner = 'gone|1|dead', lease_until = ?${attempts ? ', attempts = ?' : ''} WHERE id = ?`, [
        Date.now() + 50,
        ...(attempts ? [attempts] : []),
        run.id,
      ]);
    };
    const close = async () => {
      await Promise.all(runners.map((runner) => runner.close()));
      await db.close();
    };
    return { db, make, kill, close };
  }

  async function startRun(runner: AssistantsCapability) {
    const assistant = await runner.assistants.create(ACCOUNT, {
      model: 'fake/model',
      tools: [{ type: 'file_search' }],
      tool_resources: { file_search: { vector_store_ids: ['vs_a'] } },
    });
    return runner.threads.createAndRun(ACCOUNT, {
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'Refunds?' }] },
    });
  }

  async function until(check: () => boolean) {
    const deadline = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('finishes a run whose process died from its recorded steps, asking the model again only for the turn in flight', async () => {
    const { db, make, kill, close } = await setup();
    const searches = fakeSearcher({ vs_a: [hit('policy', 0.9, 'Refunds take 14 days.')] });
    const first = make(
      (request) => (request.messages.at(-1)!.role === 'tool' ? { hang: true } : searchThenCite(request)),
      searches.searcher,
    );
    const run = await startRun(first.runner);
    await until(() => first.chat.requests.length === 2);
    await kill(run);
    const second = make(searchThenCite);
    second.runner.start();
    const done = await waitFor(second.runner, ACCOUNT, run);
    expect(done.status).toBe('completed');
    expect(second.chat.requests).toHaveLength(1);
    expect(String(second.chat.requests[0]!.messages.at(-1)!.content)).toContain('Refunds take 14 days.');
    expect(searches.searches).toHaveLength(1);
    const steps = await second.runner.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, { order: 'asc' });
    expect(steps.data.map((step) => [step.type, step.status])).toEqual([
      ['tool_calls', 'completed'],
      ['message_creation', 'completed'],
    ]);
    const messages = await second.runner.threads.messages.list(ACCOUNT, run.thread_id, { order: 'asc' });
    expect(messages.data.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messages.data[1]!.content[0]!.text.annotations).toHaveLength(1);
    expect(await db.get('SELECT attempts FROM runs WHERE id = ?', [run.id])).toEqual({ attempts: 2 });
    await close();
  });

  it('runs the tools of a recorded model answer again on takeover, reusing its step, without asking the model again', async () => {
    const { make, kill, close } = await setup();
    const stuck: StoreSearcher = {
      search: async () => [],
      waitForIngestion: (_account, _stores, _timeout) => new Promise(() => {}),
    };
    const first = make(searchThenCite, stuck);
    const run = await startRun(first.runner);
    await until(() => first.chat.requests.length === 1);
    // The first process is inside the file search of the recorded answer when it dies.
    const deadline = Date.now() + 10_000;
    while ((await first.runner.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, {})).data.length === 0) {
      if (Date.now() > deadline) throw new Error('no tool step');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await kill(run);
    const second = make(searchThenCite);
    second.runner.start();
    const done = await waitFor(second.runner, ACCOUNT, run);
    expect(done.status).toBe('completed');
    expect(first.chat.requests).toHaveLength(1);
    expect(second.chat.requests).toHaveLength(1);
    expect(second.chat.requests[0]!.messages.at(-1)!.role).toBe('tool');
    const steps = await second.runner.threads.runs.steps.list(ACCOUNT, run.thread_id, run.id, { order: 'asc' });
    expect(steps.data.map((step) => [step.type, step.status])).toEqual([
      ['tool_calls', 'completed'],
      ['message_creation', 'completed'],
    ]);
    await close();
  });

  it('ends the stream of the dead process and drops its half-written message; the taker writes the answer once', async () => {
    const { make, kill, close } = await setup({});
    const first = make(() => ({ content: 'Half an ', stall: true }));
    const assistant = await first.runner.assistants.create(ACCOUNT, { model: 'fake/model' });
    const stream = await first.runner.threads.createAndRunStream(ACCOUNT, {
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    const iterator = stream[Symbol.asyncIterator]();
    const events: AssistantStreamEvent[] = [];
    const seen: string[] = [];
    let run: Run | undefined;
    while (!seen.includes('thread.message.delta')) {
      const next = await iterator.next();
      if (next.done) throw new Error('stream ended early');
      seen.push(next.value.event);
      if (next.value.event === 'thread.run.created') run = next.value.data;
    }
    await kill(run!);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      seen.push(next.value.event);
      events.push(next.value);
    }
    expect(seen).not.toContain('thread.message.completed');
    expect(seen).not.toContain('thread.run.completed');
    expect(seen.slice(-2)).toEqual(['error', 'done']);
    // The error event's data is OpenAI's error object itself (the SDK's `ErrorEvent`), not an envelope.
    expect(events.find((event) => event.event === 'error')?.data).toMatchObject({ type: 'server_error', code: 'run_moved' });
    expect(undeclaredEvents(events)).toEqual([]);

    const second = make(() => ({ content: 'A whole answer.' }));
    second.runner.start();
    const done = await waitFor(second.runner, ACCOUNT, run!);
    expect(done.status).toBe('completed');
    const messages = await second.runner.threads.messages.list(ACCOUNT, run!.thread_id, { order: 'asc' });
    expect(messages.data.map((message) => [message.role, message.status, message.content[0]?.text.value])).toEqual([
      ['user', 'completed', 'hi'],
      ['assistant', 'completed', 'A whole answer.'],
    ]);
    const steps = await second.runner.threads.runs.steps.list(ACCOUNT, run!.thread_id, run!.id, {});
    expect(steps.data.map((step) => [step.type, step.status])).toEqual([['message_creation', 'completed']]);
    await close();
  });

  it('fails a run claimed more times than allowed with server_error, closing what it left open', async () => {
    const { make, kill, close } = await setup({});
    const first = make(() => ({ content: 'Never ', stall: true }));
    const assistant = await first.runner.assistants.create(ACCOUNT, { model: 'fake/model' });
    const stream = await first.runner.threads.createAndRunStream(ACCOUNT, {
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    const iterator = stream[Symbol.asyncIterator]();
    let run: Run | undefined;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (next.value.event === 'thread.run.created') run = next.value.data as Run;
      if (next.value.event === 'thread.message.delta') break;
    }
    // As if this was its third process in a row to die.
    await kill(run!, 3);
    const second = make(() => ({ content: 'not asked' }));
    second.runner.start();
    const done = await waitFor(second.runner, ACCOUNT, run!);
    expect(done.status).toBe('failed');
    expect(done.last_error).toEqual({ code: 'server_error', message: expect.stringContaining('interrupted 3 times') });
    expect(second.chat.requests).toHaveLength(0);
    const steps = await second.runner.threads.runs.steps.list(ACCOUNT, run!.thread_id, run!.id, {});
    expect(steps.data.map((step) => step.status)).toEqual(['failed']);
    const messages = await second.runner.threads.messages.list(ACCOUNT, run!.thread_id, { order: 'asc' });
    expect(messages.data.map((message) => message.status)).toEqual(['completed', 'incomplete']);
    await close();
  });

  it('cancels a run executing in another process: the executor ends it cancelled at its next step', async () => {
    const { make, close } = await setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowSearch: StoreSearcher = {
      search: async () => [hit('policy', 0.9)],
      waitForIngestion: async () => {
        await gate;
        return true;
      },
    };
    const executor = make(searchThenCite, slowSearch);
    const other = make(searchThenCite);
    const run = await startRun(executor.runner);
    await until(() => executor.chat.requests.length === 1);
    const cancelling = await other.runner.threads.runs.cancel(ACCOUNT, run.thread_id, run.id);
    expect(cancelling.status).toBe('cancelling');
    release();
    const done = await waitFor(other.runner, ACCOUNT, run);
    expect(done.status).toBe('cancelled');
    expect(executor.chat.requests).toHaveLength(1);
    await close();
  });
});
