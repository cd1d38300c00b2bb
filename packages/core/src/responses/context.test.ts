import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { InvalidRequestError, NotFoundError } from '../errors';
import { closeTestPostgres, openTestDatabase } from '../test/postgres';
import { buildContext, type ContextSources } from './context';
import { ContextBudget } from './context-budget';
import { SqlConversationsRepository } from './conversations-repository';
import type { StoredItem } from './items';
import { readResponseRequest } from './read-request';
import { SqlResponsesRepository } from './responses-repository';
import { responsesSchema } from './schema';
import type { FileContents } from './to-messages';

afterAll(closeTestPostgres);

const message = (id: string, text: string, role = 'assistant'): StoredItem => ({
  id,
  type: 'message',
  role,
  status: 'completed',
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
});
const bytes = (item: StoredItem) => Buffer.byteLength(JSON.stringify(item));

async function setup() {
  const db = await openTestDatabase('sqlite', [accountsSchema, responsesSchema]);
  const account = (await new Accounts(db).create({ name: 'a' })).id;
  const responses = new SqlResponsesRepository(db);
  const conversations = new SqlConversationsRepository(db);
  // Counts the repository calls that read item bodies or sizes.
  const calls = { itemSizes: 0, loadItems: 0 };
  const counted = Object.assign(Object.create(responses) as SqlResponsesRepository, {
    itemSizes: (accountId: string, ids: readonly string[]) => {
      calls.itemSizes++;
      return responses.itemSizes(accountId, ids);
    },
    loadItems: (accountId: string, ids: readonly string[]) => {
      calls.loadItems++;
      return responses.loadItems(accountId, ids);
    },
  });
  const store = async (id: string, items: StoredItem[], previous: string | null = null) => {
    await responses.insert({
      id,
      accountId: account,
      status: 'completed',
      background: false,
      previousResponseId: previous,
      conversationId: null,
      body: { id, status: 'completed', output: [] },
      request: null,
      attempts: 0,
      createdAt: 1,
    });
    await responses.addItems(id, account, 'output', items);
  };
  const sources = (files?: FileContents): ContextSources => ({ responses: counted, conversations, files });
  return { db, account, responses, conversations, calls, store, sources };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: InvalidRequestError) => error,
  );

describe('the context a request pulls in', () => {
  it('resolves each referenced id once (one query for sizes, one for bodies) however often it is referenced', async () => {
    const { db, account, calls, store, sources } = await setup();
    await store('r1', [message('m1', 'one'), message('m2', 'two')]);
    const input = Array.from({ length: 300 }, (_, index) => ({ type: 'item_reference', id: index % 2 ? 'm1' : 'm2' }));
    const { messages } = await buildContext(sources(), account, readResponseRequest({ model: 'v/m', input }), 128_000);
    expect(messages).toHaveLength(300);
    expect(calls).toEqual({ itemSizes: 1, loadItems: 1 });
    await db.close();
  });

  it('counts a reference each time it appears and refuses the one that crosses the budget, naming it', async () => {
    const { db, account, store, sources } = await setup();
    const big = message('big', 'x'.repeat(10_000));
    await store('r1', [big]);
    const budget = new ContextBudget(bytes(big) * 3);
    const input = Array.from({ length: 320 }, () => ({ type: 'item_reference', id: 'big' }));
    const error = await refusal(buildContext(sources(), account, readResponseRequest({ model: 'v/m', input }), 128_000, budget));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ param: 'input[3].id', code: 'context_too_large', status: 400 });
    const missing = await refusal(
      buildContext(sources(), account, readResponseRequest({ model: 'v/m', input: [{ type: 'item_reference', id: 'nope' }] }), 1),
    );
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ param: 'input[0].id' });
    await db.close();
  });

  it('bounds the previous_response_id chain: 400 naming it, or the oldest responses left out with truncation auto', async () => {
    const { db, account, store, sources } = await setup();
    const turn = (n: number) => message(`m${n}`, `${n}`.repeat(5_000));
    await store('r1', [turn(1)]);
    await store('r2', [turn(2)], 'r1');
    await store('r3', [turn(3)], 'r2');
    const budget = () => new ContextBudget(bytes(turn(1)) * 2 + 100);
    const request = (truncation: string) => readResponseRequest({ model: 'v/m', input: 'next', previous_response_id: 'r3', truncation });
    expect(await refusal(buildContext(sources(), account, request('disabled'), 128_000, budget()))).toMatchObject({
      param: 'previous_response_id',
      code: 'context_too_large',
    });
    const { messages } = await buildContext(sources(), account, request('auto'), 128_000, budget());
    expect(messages.map((entry) => String(entry.content)[0])).toEqual(['2', '3', 'n']);
    await db.close();
  });

  it('bounds a conversation the same way, its references counted at the size of what they name', async () => {
    const { db, account, conversations, store, sources } = await setup();
    const big = message('big', 'y'.repeat(8_000));
    await store('r1', [big]);
    await conversations.insert({ id: 'conv_1', accountId: account, metadata: {}, createdAt: 1 });
    await conversations.addItems('conv_1', account, [
      message('u1', 'first', 'user'),
      { type: 'item_reference', id: 'big' },
      message('u2', 'last', 'user'),
    ]);
    const budget = () => new ContextBudget(bytes(big) + 200);
    const request = (truncation: string) => readResponseRequest({ model: 'v/m', input: 'next', conversation: 'conv_1', truncation });
    expect(await refusal(buildContext(sources(), account, request('disabled'), 128_000, budget()))).toMatchObject({
      param: 'conversation',
    });
    const { messages } = await buildContext(sources(), account, request('auto'), 128_000, budget());
    expect(messages.map((entry) => String(entry.content).slice(0, 4))).toEqual(['yyyy', 'last', 'next']);
    await db.close();
  });

  it('reads each distinct file once per request however many parts name it, counts its text per part, and caps distinct files', async () => {
    const { db, account, sources } = await setup();
    const reads: string[] = [];
    const files: FileContents = {
      async fileText(_account, fileId) {
        reads.push(fileId);
        return { filename: `${fileId}.pdf`, text: `text of ${fileId}` };
      },
      async dataText(_account, filename) {
        reads.push(filename);
        return `inline ${filename}`;
      },
      async imageDataUrl() {
        return 'data:image/png;base64,AA==';
      },
      async checkFile() {},
    };
    const part = (fileId: string) => ({ type: 'input_file', file_id: fileId });
    const inline = { type: 'input_file', filename: 'a.txt', file_data: Buffer.from('hello').toString('base64') };
    const content = [...Array.from({ length: 40 }, () => part('file-slow')), inline, inline];
    const { messages } = await buildContext(
      sources(files),
      account,
      readResponseRequest({ model: 'v/m', input: [{ role: 'user', content }] }),
      128_000,
    );
    expect(reads).toEqual(['file-slow', 'a.txt']);
    expect(messages[0]!.content).toHaveLength(42);
    // The text is counted once per part: 40 parts of a file whose text alone fits can still be too much.
    const text = Buffer.byteLength('[file file-slow.pdf]\ntext of file-slow');
    const tight = new ContextBudget(text * 39);
    const error = await refusal(
      buildContext(sources(files), account, readResponseRequest({ model: 'v/m', input: [{ role: 'user', content }] }), 1, tight),
    );
    expect(error).toMatchObject({ code: 'context_too_large', param: expect.stringMatching(/^input\[0\]\.content\[\d+\]\.file_id$/) });
    const many = Array.from({ length: 21 }, (_, index) => part(`file-${index}`));
    expect(
      await refusal(
        buildContext(sources(files), account, readResponseRequest({ model: 'v/m', input: [{ role: 'user', content: many }] }), 1),
      ),
    ).toMatchObject({ code: 'too_many_files', param: 'input[0].content[20].file_id' });
    await db.close();
  });
});
