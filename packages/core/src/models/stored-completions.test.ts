import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { NotFoundError } from '../errors';
import { loadConfig } from '../config';
import { silentLogger } from '../internal/logger';
import { meterReads } from '../test/metered-sql-client';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { createModels } from './create-models';
import { SqlStoredCompletionsRepository, storedCompletionsSchema } from './stored-completions';
import type { ChatMessage } from './types';
import { modelsSchema } from './usage-store';
import type { ChatCompletion } from './wire/chat-completions';

afterAll(closeTestPostgres);

const MB = 1_000_000;

function completion(id: string, text: string): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created: 1,
    model: 'v/m',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

describe.each(testBackends())('stored chat completions (fathom.chat.completions) on %s', (backend) => {
  async function setup() {
    const db = await openTestDatabase(backend, [accountsSchema, modelsSchema, storedCompletionsSchema]);
    const accounts = new Accounts(db);
    const [account, other] = [await accounts.create({ name: 'a' }), await accounts.create({ name: 'b' })];
    const metered = meterReads(db);
    const models = createModels({ db: metered, config: loadConfig({}), log: silentLogger });
    const repository = new SqlStoredCompletionsRepository(db);
    // What `create` with `store: true` keeps, written directly (the http suite covers the whole call).
    const save = (accountId: string, kept: ChatCompletion, messages: ChatMessage[], metadata: Record<string, string>) =>
      repository.insert({ accountId, completion: kept, messages, metadata });
    return { db, metered, completions: models.chat.completions, save, accountId: account.id, otherId: other.id };
  }

  it('lists and filters by metadata in the database, reading neither messages nor rows past the page', async () => {
    const { db, metered, completions, save, accountId, otherId } = await setup();
    // Eight completions whose request messages are 1 MB each (20 of 10 MB grew the server by 420 MB).
    const big: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(MB) }];
    for (let i = 0; i < 8; i++) {
      await save(accountId, completion(`chatcmpl-${i}`, `answer ${i}`), big, { t: i % 2 ? 'odd' : 'even', n: String(i) });
    }
    await save(otherId, completion('chatcmpl-other', 'theirs'), big, { t: 'odd' });

    metered.reset();
    expect((await completions.list(accountId, { metadata: { t: 'nomatch' } })).data).toEqual([]);
    expect(metered.bytesRead).toBeLessThan(1_000);

    metered.reset();
    const odd = await completions.list(accountId, { metadata: { t: 'odd' }, limit: 2 });
    expect(odd.data.map((entry) => entry.id)).toEqual(['chatcmpl-1', 'chatcmpl-3']);
    expect(odd.data[0]).toMatchObject({ metadata: { t: 'odd', n: '1' }, choices: [{ message: { content: 'answer 1' } }] });
    expect(odd.has_more).toBe(true);
    // Three small rows (the page and one to know there is more): a few KB, not megabytes.
    expect(metered.bytesRead).toBeLessThan(5_000);

    const next = await completions.list(accountId, { metadata: { t: 'odd' }, limit: 2, after: odd.last_id! });
    expect(next.data.map((entry) => entry.id)).toEqual(['chatcmpl-5', 'chatcmpl-7']);
    expect(next.has_more).toBe(false);
    expect((await completions.list(accountId, { metadata: { t: 'odd', n: '5' } })).data.map((entry) => entry.id)).toEqual(['chatcmpl-5']);
    expect((await completions.list(accountId, { metadata: { t: 'even', n: '5' } })).data).toEqual([]);
    expect((await completions.list(accountId, { order: 'desc', limit: 3 })).data.map((entry) => entry.id)).toEqual([
      'chatcmpl-7',
      'chatcmpl-6',
      'chatcmpl-5',
    ]);
    // Keys and values that look like JSON paths or SQL are matched literally.
    await save(accountId, completion('chatcmpl-odd-key', 'x'), [], { '$.t': "it's", 'a"b': '%' });
    expect((await completions.list(accountId, { metadata: { '$.t': "it's", 'a"b': '%' } })).data.map((entry) => entry.id)).toEqual([
      'chatcmpl-odd-key',
    ]);
    expect((await completions.list(accountId, { metadata: { 'a"b': '_' } })).data).toEqual([]);

    metered.reset();
    expect((await completions.retrieve(accountId, 'chatcmpl-2')).metadata).toEqual({ t: 'even', n: '2' });
    await completions.update(accountId, 'chatcmpl-2', { metadata: { t: 'changed' } });
    expect(metered.bytesRead).toBeLessThan(2_000);
    await db.close();
  });

  it('pages through the request messages in the database', async () => {
    const { db, metered, completions, save, accountId, otherId } = await setup();
    const messages: ChatMessage[] = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `${i}:${'m'.repeat(MB / 4)}` }));
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'parts' }], name: 'bot' });
    await save(accountId, completion('chatcmpl-m', 'ok'), messages, {});

    metered.reset();
    const first = await completions.messages.list(accountId, 'chatcmpl-m', { limit: 2 });
    expect(first.data.map((message) => [message.id, (message.content as string).slice(0, 2)])).toEqual([
      ['chatcmpl-m-0', '0:'],
      ['chatcmpl-m-1', '1:'],
    ]);
    expect(first.has_more).toBe(true);
    // The page and one more message: three of the seven, not all of them.
    expect(metered.bytesRead).toBeLessThan(0.8 * MB);
    const rest = await completions.messages.list(accountId, 'chatcmpl-m', { limit: 10, after: first.last_id! });
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
    const backwards = await completions.messages.list(accountId, 'chatcmpl-m', { order: 'desc', limit: 2, after: 'chatcmpl-m-2' });
    expect(backwards.data.map((message) => message.id)).toEqual(['chatcmpl-m-1', 'chatcmpl-m-0']);
    for (const after of ['unknown', 'chatcmpl-m-99999999999999999999', 'chatcmpl-other-1']) {
      expect((await completions.messages.list(accountId, 'chatcmpl-m', { after })).data).toEqual([]);
    }
    await expect(completions.messages.list(otherId, 'chatcmpl-m', {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(completions.messages.list(accountId, 'chatcmpl-none', {})).rejects.toBeInstanceOf(NotFoundError);
    await db.close();
  });
});
