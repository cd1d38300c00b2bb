import { afterAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../storage';
import { meterReads } from '../test/metered-sql-client';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { newAssistant } from './assistant-input';
import { SqlAssistantsRepository } from './assistants-repository';
import { newRunObject } from './create-run';
import { emptyRunState } from './run-state';
import { newRunStep } from './run-step';
import { SqlRunsRepository } from './runs-repository';
import { assistantsSchema } from './schema';
import { newClientMessage } from './thread-input';
import { SqlThreadsRepository } from './threads-repository';
import type { Thread } from './types';

afterAll(closeTestPostgres);

const ACCOUNT = 'acct_a';

describe.each(testBackends())('assistants repositories on %s', (backend) => {
  async function setup() {
    const db: SqlDatabase = await openTestDatabase(backend, [assistantsSchema]);
    return { db, assistants: new SqlAssistantsRepository(db), threads: new SqlThreadsRepository(db), runs: new SqlRunsRepository(db) };
  }

  function thread(id: string): Thread {
    return { id, object: 'thread', created_at: 1, metadata: {}, tool_resources: {} };
  }

  it('stores assistants per account and pages through them in insertion order', async () => {
    const { db, assistants } = await setup();
    const created = [];
    for (let i = 0; i < 5; i++) {
      const assistant = newAssistant({ model: 'v/m', name: `a${i}` });
      await assistants.insert(ACCOUNT, assistant);
      created.push(assistant.id);
    }
    await assistants.insert('acct_other', newAssistant({ model: 'v/m' }));
    const first = await assistants.list(ACCOUNT, { limit: 2, order: 'asc' });
    expect(first.data.map((a) => a.id)).toEqual(created.slice(0, 2));
    expect(first.has_more).toBe(true);
    const rest = await assistants.list(ACCOUNT, { limit: 10, order: 'asc', after: first.last_id! });
    expect(rest.data.map((a) => a.id)).toEqual(created.slice(2));
    expect(rest.has_more).toBe(false);
    expect(await assistants.get('acct_other', created[0]!)).toBeUndefined();
    expect(await assistants.delete('acct_other', created[0]!)).toBe(false);
    expect(await assistants.delete(ACCOUNT, created[0]!)).toBe(true);
    expect(await assistants.get(ACCOUNT, created[0]!)).toBeUndefined();
    await db.close();
  });

  it('keeps messages in creation order and changes a thread only by compare-and-set when asked', async () => {
    const { db, threads } = await setup();
    const stored = thread('thread_1');
    await threads.insertThread(ACCOUNT, stored);
    for (const text of ['one', 'two', 'three'])
      await threads.insertMessage(ACCOUNT, newClientMessage('thread_1', { role: 'user', content: text }));
    expect((await threads.allMessages('thread_1')).map((m) => m.content[0]!.text.value)).toEqual(['one', 'two', 'three']);
    const page = await threads.listMessages('thread_1', { limit: 2 });
    expect(page.data.map((m) => m.content[0]!.text.value)).toEqual(['three', 'two']);

    const first = { ...stored, tool_resources: { file_search: { vector_store_ids: ['vs_1'] } } };
    const second = { ...stored, tool_resources: { file_search: { vector_store_ids: ['vs_2'] } } };
    expect(await threads.saveThread(first, stored)).toBe(true);
    expect(await threads.saveThread(second, stored)).toBe(false);
    expect((await threads.getThread(ACCOUNT, 'thread_1'))?.tool_resources).toEqual({ file_search: { vector_store_ids: ['vs_1'] } });
    expect(await threads.getThread('acct_other', 'thread_1')).toBeUndefined();
    await threads.deleteThread('thread_1');
    expect(await threads.allMessages('thread_1')).toEqual([]);
    await db.close();
  });

  it('holds at most one active run per thread, writes a run only for its lease owner, and lets status and metadata win', async () => {
    const { db, runs } = await setup();
    const assistant = newAssistant({ model: 'v/m' });
    const lease = { owner: 'node-a', until: Date.now() + 60_000 };
    const run = newRunObject(assistant, 'thread_1', {}, 600);
    expect(await runs.insert(ACCOUNT, run, emptyRunState(), lease)).toBe(true);
    expect(await runs.insert(ACCOUNT, newRunObject(assistant, 'thread_1', {}, 600), emptyRunState(), lease)).toBe(false);
    expect((await runs.activeRunOf('thread_1'))?.id).toBe(run.id);

    run.status = 'in_progress';
    expect(await runs.saveOwned(run, emptyRunState(), 'node-b', ['queued'])).toBe(false);
    expect(await runs.saveOwned(run, emptyRunState(), 'node-a', ['queued'])).toBe(true);
    expect(await runs.holds(run.id, 'node-a')).toBe(true);
    expect(await runs.holds(run.id, 'node-b')).toBe(false);

    // Another process asks to cancel and sets metadata: the owner's next write of `data` loses neither.
    expect(await runs.requestCancel(run.id)).toBe(true);
    await runs.setMetadata(run.id, { k: 'v' });
    expect(await runs.saveOwned(run, emptyRunState(), 'node-a', ['queued', 'in_progress'])).toBe(false);
    expect(await runs.get(ACCOUNT, 'thread_1', run.id)).toMatchObject({ status: 'cancelling', metadata: { k: 'v' } });
    run.status = 'cancelled';
    expect(await runs.saveOwned(run, emptyRunState(), 'node-a', ['cancelling'], true)).toBe(true);
    expect(await runs.activeRunOf('thread_1')).toBeUndefined();
    expect(await runs.insert(ACCOUNT, newRunObject(assistant, 'thread_1', {}, 600), emptyRunState(), lease)).toBe(true);
    expect(await runs.get('acct_other', 'thread_1', run.id)).toBeUndefined();
    await db.close();
  });

  it('lists runs without reading their resumable state', async () => {
    const { db } = await setup();
    const metered = meterReads(db);
    const runs = new SqlRunsRepository(metered);
    const assistant = newAssistant({ model: 'v/m' });
    // A long conversation in each run's state: what the run resumes from, not what a list shows.
    const state = { ...emptyRunState(), transcript: [{ role: 'user' as const, content: 's'.repeat(500_000) }] };
    for (let i = 0; i < 4; i++) {
      const run = newRunObject(assistant, `thread_${i % 2}`, {}, 600);
      run.status = 'completed';
      await runs.insert(ACCOUNT, run, state, { owner: 'node-a', until: Date.now() + 60_000 });
    }
    metered.reset();
    expect((await runs.list(ACCOUNT, 'thread_0', {})).data).toHaveLength(2);
    expect(metered.bytesRead).toBeLessThan(10_000);
    await db.close();
  });

  it('lets a paused run be resumed once, claimed by the resuming process', async () => {
    const { db, runs } = await setup();
    const run = newRunObject(newAssistant({ model: 'v/m' }), 'thread_1', {}, 600);
    await runs.insert(ACCOUNT, run, emptyRunState(), { owner: 'node-a', until: Date.now() + 60_000 });
    run.status = 'requires_action';
    expect(await runs.saveOwned(run, emptyRunState(), 'node-a', ['queued'], true)).toBe(true);
    run.status = 'queued';
    const [first, second] = await Promise.all([
      runs.transition(run, emptyRunState(), ['requires_action'], { owner: 'node-b', until: Date.now() + 60_000 }),
      runs.transition(run, emptyRunState(), ['requires_action'], { owner: 'node-c', until: Date.now() + 60_000 }),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect((await runs.byId(run.id))?.leaseOwner).toBe(first ? 'node-b' : 'node-c');
    expect((await runs.byId(run.id))?.attempts).toBe(1);
    await db.close();
  });

  it('queues executing runs for takeover only once their lease ended or was given back', async () => {
    const { db, runs } = await setup();
    const assistant = newAssistant({ model: 'v/m' });
    const live = newRunObject(assistant, 'thread_live', {}, 600);
    const dead = newRunObject(assistant, 'thread_dead', {}, 600);
    const paused = newRunObject(assistant, 'thread_paused', {}, 600);
    const now = Date.now();
    await runs.insert(ACCOUNT, live, emptyRunState(), { owner: 'node-a', until: now + 60_000 });
    await runs.insert(ACCOUNT, dead, emptyRunState(), { owner: 'node-gone', until: now - 1 });
    await runs.insert(ACCOUNT, paused, emptyRunState(), { owner: 'node-a', until: now + 60_000 });
    paused.status = 'requires_action';
    await runs.saveOwned(paused, emptyRunState(), 'node-a', ['queued'], true);

    const queue = runs.queue();
    const claimed = await queue.claim('node-b', now + 60_000, 10, now);
    expect(claimed).toEqual([{ id: dead.id, attempts: 2 }]);
    expect(await queue.claim('node-c', now + 60_000, 10, now)).toEqual([]);
    await queue.release('node-a', [live.id]);
    expect(await queue.claim('node-c', now + 60_000, 10, now)).toEqual([{ id: live.id, attempts: 1 }]);
    expect(await queue.renew('node-b', [dead.id, live.id], now + 90_000)).toEqual([dead.id]);
    await db.close();
  });

  it('keeps steps in order, finds open ones, and deletes a thread with its runs and steps', async () => {
    const { db, runs } = await setup();
    const run = newRunObject(newAssistant({ model: 'v/m' }), 'thread_1', {}, 600);
    await runs.insert(ACCOUNT, run, emptyRunState(), { owner: 'node-a', until: Date.now() + 60_000 });
    const steps = [0, 1, 2].map(() => newRunStep(run, { type: 'message_creation', message_creation: { message_id: 'msg_x' } }));
    for (const step of steps) await runs.insertStep(ACCOUNT, step);
    steps[1]!.status = 'completed';
    await runs.saveStep(steps[1]!);
    expect((await runs.openSteps(run.id)).map((step) => step.id)).toEqual([steps[0]!.id, steps[2]!.id]);
    expect((await runs.listSteps(run.id, { order: 'asc' })).data.map((step) => step.id)).toEqual(steps.map((step) => step.id));
    expect(await runs.getStep('acct_other', 'thread_1', run.id, steps[0]!.id)).toBeUndefined();
    await runs.deleteThreadRuns('thread_1');
    expect(await runs.byId(run.id)).toBeUndefined();
    expect(await runs.stepById(steps[0]!.id)).toBeUndefined();
    await db.close();
  });
});
