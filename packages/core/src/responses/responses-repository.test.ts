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
    const chain = await responses.chain(a, 'r3');
    expect(chain.map((link) => link.id)).toEqual(['r1', 'r2', 'r3']);
    expect(chain[0]!.entries.map((entry) => entry.itemId)).toEqual(['in_r1', 'out_r1']);
    expect(chain[0]!.entries[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(message('in_r1', 'question r1'))));
    const items = await responses.chainItems(a, 'r3', 3);
    expect(items.map((item) => item.id)).toEqual(['in_r1', 'out_r1', 'in_r2', 'out_r2', 'in_r3', 'out_r3']);
    // The newest two only (what truncation keeps).
    expect((await responses.chainItems(a, 'r3', 2)).map((item) => item.id)).toEqual(['in_r2', 'out_r2', 'in_r3', 'out_r3']);
    expect((await responses.chain(b, 'rb')).map((link) => link.id)).toEqual(['rb']);
    expect((await responses.chain(b, 'r3')).map((link) => link.id)).toEqual([]);
    expect([...(await responses.loadItems(a, ['out_r2', 'nope'])).keys()]).toEqual(['out_r2']);
    expect((await responses.loadItems(b, ['out_r2'])).size).toBe(0);
    await db.close();
  });

  it('claims a background response once, and deleting removes its items and events', async () => {
    const { db, a, responses, add } = await setup();
    await add(a, 'bg', null, true);
    const queue = responses.queue();
    const [task] = await queue.claim('owner-1', Date.now() + 1000, 5, Date.now());
    expect(task).toMatchObject({ id: 'bg', attempts: 1, request: { model: 'v/m' } });
    expect(await queue.claim('owner-2', Date.now() + 1000, 5, Date.now())).toEqual([]);
    await responses.appendEvents(
      'bg',
      1,
      [
        { sequence_number: 0, type: 'response.created' },
        { sequence_number: 1, type: 'response.in_progress' },
      ],
      'owner-1',
    );
    // A run that does not hold the lease writes nothing.
    await responses.appendEvents('bg', 1, [{ sequence_number: 2, type: 'response.output_text.delta' }], 'owner-2');
    expect(await responses.nextRun('bg')).toEqual({ run: 2, firstSequence: 2 });
    expect(await responses.runOf('bg', 1)).toBe(1);
    expect((await responses.eventsAfter('bg', 0)).map(({ event }) => event.type)).toEqual(['response.in_progress']);
    expect(await responses.update('bg', 'completed', { id: 'bg', status: 'completed', output: [] }, 'owner-2')).toBe(false);
    expect(await responses.update('bg', 'completed', { id: 'bg', status: 'completed', output: [] }, 'owner-1')).toBe(true);
    expect(await responses.delete(a, 'bg')).toBe(true);
    expect(await responses.eventsAfter('bg', -1)).toEqual([]);
    expect((await responses.itemSizes(a, ['in_bg'])).size).toBe(0);
    await db.close();
  });

  it('keeps conversation items in order, ignores a repeated item id, and pages with after', async () => {
    const { db, a, conversations } = await setup();
    await conversations.insert({ id: 'conv_1', accountId: a, metadata: {}, createdAt: 1 });
    await conversations.addItems('conv_1', a, [message('m1', 'one'), message('m2', 'two')]);
    await conversations.addItems('conv_1', a, [message('m2', 'two again'), message('m3', 'three')]);
    const entries = await conversations.entries('conv_1');
    expect(entries.map((entry) => entry.itemId)).toEqual(['m1', 'm2', 'm3']);
    expect((await conversations.itemsFrom('conv_1', entries[1]!.order)).map((item) => item.id)).toEqual(['m2', 'm3']);
    const page = await conversations.itemsPage('conv_1', { order: 'asc', limit: 1, after: 'm1' });
    expect(page).toMatchObject({ data: [{ id: 'm2' }], has_more: true });
    expect(await conversations.delete(a, 'conv_1')).toBe(true);
    expect(await conversations.entries('conv_1')).toEqual([]);
    // A response finishing in a conversation deleted meanwhile writes nothing there (and does not fail).
    expect(await conversations.addItems('conv_1', a, [message('m4', 'late')])).toBe(false);
    await db.close();
  });

  it('stores an item_reference as the reference, and measures and loads each referenced id once from its first copy', async () => {
    const { db, a, responses, conversations, add } = await setup();
    await add(a, 'r1', null);
    const big = message('big', 'x'.repeat(100_000));
    await responses.addItems('r1', a, 'output', [big]);
    await conversations.insert({ id: 'conv_1', accountId: a, metadata: {}, createdAt: 1 });
    await conversations.addItems('conv_1', a, [{ ...big, content: [{ type: 'input_text', text: 'a later copy' }] }]);
    await add(a, 'r2', 'r1');
    const references = Array.from({ length: 50 }, () => ({ type: 'item_reference' as const, id: 'big' }));
    await responses.addItems('r2', a, 'input', references);
    await conversations.addItems('conv_1', a, [{ type: 'item_reference', id: 'out_r2' }]);
    const stored = await db.get<{ bytes: number }>("SELECT SUM(LENGTH(item)) AS bytes FROM response_items WHERE response_id = 'r2'");
    expect(Number(stored!.bytes)).toBeLessThan(50 * 100);
    const chain = await responses.chain(a, 'r2');
    expect(chain[1]!.entries.filter((entry) => entry.reference)).toHaveLength(50);
    // The reference rows themselves are not items: only the stored copies are measured and loaded.
    const sizes = await responses.itemSizes(a, ['big', 'big', 'out_r2', 'nothing']);
    expect(sizes.get('big')).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect([...sizes.keys()].sort()).toEqual(['big', 'out_r2']);
    expect((await responses.loadItems(a, ['big'])).get('big')).toEqual(big);
    expect(await conversations.item('conv_1', 'out_r2')).toEqual({ type: 'item_reference', id: 'out_r2' });
    expect((await conversations.entries('conv_1')).map((entry) => entry.reference)).toEqual([false, true]);
    await db.close();
  });
});
