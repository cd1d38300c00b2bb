import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { NotFoundError } from '../errors';
import { meterReads } from '../test/metered-sql-client';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { type ChatCompletionObject, StoredCompletions, storedCompletionsSchema } from './stored-completions';
import type { ChatMessage } from './types';

afterAll(closeTestPostgres);

const MB = 1_000_000;

function completion(id: string, text: string): ChatCompletionObject {
  return {
    id,
    object: 'chat.completion',
    created: 1,
    model: 'v/m',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

describe.each(testBackends())('StoredCompletions on %s', (backend) => {
  async function setup() {
    const db = await openTestDatabase(backend, [accountsSchema, storedCompletionsSchema]);
    const accounts = new Accounts(db);
    const [account, other] = [await accounts.create({ name: 'a' }), await accounts.create({ name: 'b' })];
    const metered = meterReads(db);
    return { db, metered, stored: new StoredCompletions({ db: metered }), accountId: account.id, otherId: other.id };
  }

  it('lists and filters by metadata in the database, reading neither messages nor rows past the page', async () => {
    const { db, metered, stored, accountId, otherId } = await setup();
    // Eight completions whose request messages are 1 MB each (20 of 10 MB grew the server by 420 MB).
    const big: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(MB) }];
    for (let i = 0; i < 8; i++) {
      await stored.save(accountId, completion(`chatcmpl-${i}`, `answer ${i}`), big, { t: i % 2 ? 'odd' : 'even', n: String(i) });
    }
    await stored.save(otherId, completion('chatcmpl-other', 'theirs'), big, { t: 'odd' });

    metered.reset();
    expect((await stored.list(accountId, { metadata: { t: 'nomatch' } })).data).toEqual([]);
    expect(metered.bytesRead).toBeLessThan(1_000);

    metered.reset();
    const odd = await stored.list(accountId, { metadata: { t: 'odd' }, limit: 2 });
    expect(odd.data.map((entry) => entry.id)).toEqual(['chatcmpl-1', 'chatcmpl-3']);
    expect(odd.data[0]).toMatchObject({ metadata: { t: 'odd', n: '1' }, choices: [{ message: { content: 'answer 1' } }] });
    expect(odd.has_more).toBe(true);
    // Three small rows (the page and one to know there is more): a few KB, not megabytes.
    expect(metered.bytesRead).toBeLessThan(5_000);

    const next = await stored.list(accountId, { metadata: { t: 'odd' }, limit: 2, after: odd.last_id! });
    expect(next.data.map((entry) => entry.id)).toEqual(['chatcmpl-5', 'chatcmpl-7']);
    expect(next.has_more).toBe(false);
    expect((await stored.list(accountId, { metadata: { t: 'odd', n: '5' } })).data.map((entry) => entry.id)).toEqual(['chatcmpl-5']);
    expect((await stored.list(accountId, { metadata: { t: 'even', n: '5' } })).data).toEqual([]);
    expect((await stored.list(accountId, { order: 'desc', limit: 3 })).data.map((entry) => entry.id)).toEqual([
      'chatcmpl-7',
      'chatcmpl-6',
      'chatcmpl-5',
    ]);
    // Keys and values that look like JSON paths or SQL are matched literally.
    await stored.save(accountId, completion('chatcmpl-odd-key', 'x'), [], { '$.t': "it's", 'a"b': '%' });
    expect((await stored.list(accountId, { metadata: { '$.t': "it's", 'a"b': '%' } })).data.map((entry) => entry.id)).toEqual([
      'chatcmpl-odd-key',
    ]);
    expect((await stored.list(accountId, { metadata: { 'a"b': '_' } })).data).toEqual([]);

    metered.reset();
    expect((await stored.retrieve(accountId, 'chatcmpl-2')).metadata).toEqual({ t: 'even', n: '2' });
    await stored.update(accountId, 'chatcmpl-2', { metadata: { t: 'changed' } });
    expect(metered.bytesRead).toBeLessThan(2_000);
    await db.close();
  });

  it('pages through the request messages in the database', async () => {
    const { db, metered, stored, accountId, otherId } = await setup();
    const messages: ChatMessage[] = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `${i}:${'m'.repeat(MB / 4)}` }));
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'parts' }], name: 'bot' });
    await stored.save(accountId, completion('chatcmpl-m', 'ok'), messages, {});

    metered.reset();
    const first = await stored.messages(accountId, 'chatcmpl-m', { limit: 2 });
    expect(first.data.map((message) => [message.id, (message.content as string).slice(0, 2)])).toEqual([
      ['chatcmpl-m-0', '0:'],
      ['chatcmpl-m-1', '1:'],
    ]);
    expect(first.has_more).toBe(true);
    // The page and one more message: three of the seven, not all of them.
    expect(metered.bytesRead).toBeLessThan(0.8 * MB);
    const rest = await stored.messages(accountId, 'chatcmpl-m', { limit: 10, after: first.last_id! });
    expect(rest.data.map((message) => message.id)).toEqual([
      'chatcmpl-m-2',
      'chatcmpl-m-3',
      'chatcmpl-m-4',
      'chatcmpl-m-5',
      'chatcmpl-m-6',
    ]);
    expect(rest.data.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'parts',
      content_parts: [{ type: 'text', text: 'parts' }],
      name: 'bot',
    });
    const backwards = await stored.messages(accountId, 'chatcmpl-m', { order: 'desc', limit: 2, after: 'chatcmpl-m-2' });
    expect(backwards.data.map((message) => message.id)).toEqual(['chatcmpl-m-1', 'chatcmpl-m-0']);
    for (const after of ['unknown', 'chatcmpl-m-99999999999999999999', 'chatcmpl-other-1']) {
      expect((await stored.messages(accountId, 'chatcmpl-m', { after })).data).toEqual([]);
    }
    await expect(stored.messages(otherId, 'chatcmpl-m', {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(stored.messages(accountId, 'chatcmpl-none', {})).rejects.toBeInstanceOf(NotFoundError);
    await db.close();
  });
});
