import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { SqlConversationsRepository } from './conversations-repository';
import type { StoredItem } from './items';
import { SqlResponsesRepository, type StoredResponse } from './responses-repository';
import { responsesSchema } from './schema';

afterAll(closeTestPostgres);

const message = (id: string, text: string): StoredItem => ({
  id,
  type: 'message',
  role: 'user',
  status: 'completed',
  content: [{ type: 'input_text', text }],
});

describe.each(testBackends())('responses and conversations storage on %s', (backend) => {
  async function setup() {
    const db = await openTestDatabase(backend, [accountsSchema, responsesSchema]);
    const accounts = new Accounts(db);
    const a = (await accounts.create({ name: 'a' })).id;
    const b = (await accounts.create({ name: 'b' })).id;
    const responses = new SqlResponsesRepository(db);
    const add = async (accountId: string, id: string, previous: string | null, background = false) => {
      const row: StoredResponse & { createdAt: number } = {
        id,
        accountId,
        status: background ? 'queued' : 'completed',
        background,
        previousResponseId: previous,
        conversationId: null,
        body: { id, status: 'completed', output: [] },
        request: background ? { model: 'v/m' } : null,
        attempts: 0,
        createdAt: 1,
      };
      await responses.insert(row);
      await responses.addItems(id, accountId, 'input', [message(`in_${id}`, `question ${id}`)]);
      await responses.addItems(id, accountId, 'output', [message(`out_${id}`, `answer ${id}`)]);
    };
    return { db, a, b, responses, add, conversations: new SqlConversationsRepository(db) };
  }

  it('reads a previous_response_id chain oldest first with inputs before outputs, within the account only', async () => {
    const { db, a, b, responses, add } = await setup();
    await add(a, 'r1', null);
    await add(a, 'r2', 'r1');
    await add(a, 'r3', 'r2');
    await add(b, 'rb', 'r2');
    expect((await responses.chainItems(a, 'r3')).map((item) => item.id)).toEqual(['in_r1', 'out_r1', 'in_r2', 'out_r2', 'in_r3', 'out_r3']);
    expect((await responses.chainItems(b, 'rb')).map((item) => item.id)).toEqual(['in_rb', 'out_rb']);
    expect(await responses.findItem(a, 'out_r2')).toMatchObject({ id: 'out_r2' });
    expect(await responses.findItem(b, 'out_r2')).toBeUndefined();
    expect([await responses.exists(a, 'r2'), await responses.exists(b, 'r2'), await responses.exists(a, 'r9')]).toEqual([
      true,
      false,
      false,
    ]);
    await db.close();
  });

  it('claims a background response once, and deleting removes its items and events', async () => {
    const { db, a, responses, add } = await setup();
    await add(a, 'bg', null, true);
    const queue = responses.queue();
    const [task] = await queue.claim('owner-1', Date.now() + 1000, 5, Date.now());
    expect(task).toMatchObject({ id: 'bg', attempts: 1, request: { model: 'v/m' } });
    expect(await queue.claim('owner-2', Date.now() + 1000, 5, Date.now())).toEqual([]);
    await responses.appendEvents('bg', 1, [
      { sequence_number: 0, type: 'response.created' },
      { sequence_number: 1, type: 'response.in_progress' },
    ]);
    expect((await responses.eventsAfter('bg', 0)).map(({ event }) => event.type)).toEqual(['response.in_progress']);
    expect(await responses.update('bg', 'completed', { id: 'bg', status: 'completed', output: [] }, 'owner-2')).toBe(false);
    expect(await responses.update('bg', 'completed', { id: 'bg', status: 'completed', output: [] }, 'owner-1')).toBe(true);
    expect(await responses.delete(a, 'bg')).toBe(true);
    expect(await responses.eventsAfter('bg', -1)).toEqual([]);
    expect(await responses.findItem(a, 'in_bg')).toBeUndefined();
    await db.close();
  });

  it('keeps conversation items in order, ignores a repeated item id, and pages with after', async () => {
    const { db, a, conversations } = await setup();
    await conversations.insert({ id: 'conv_1', accountId: a, metadata: {}, createdAt: 1 });
    await conversations.addItems('conv_1', a, [message('m1', 'one'), message('m2', 'two')]);
    await conversations.addItems('conv_1', a, [message('m2', 'two again'), message('m3', 'three')]);
    expect((await conversations.allItems('conv_1')).map((item) => item.id)).toEqual(['m1', 'm2', 'm3']);
    const page = await conversations.itemsPage('conv_1', { order: 'asc', limit: 1, after: 'm1' });
    expect(page).toMatchObject({ data: [{ id: 'm2' }], has_more: true });
    expect(await conversations.delete(a, 'conv_1')).toBe(true);
    expect(await conversations.allItems('conv_1')).toEqual([]);
    await db.close();
  });
});
