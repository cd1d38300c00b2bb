import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { loadConfig } from '../config';
import { silentLogger } from '../internal/logger';
import { SqliteDatabase } from '../storage';
import { createFakeOpenAIUpstream, type FakeUpstream } from '../test';
import { ChatCompletionStream } from './chat-completion-stream';
import { createModels } from './create-models';
import { storedCompletionsSchema } from './stored-completions';
import { modelsSchema } from './usage-store';
import { ChatCompletion, ChatCompletionChunk } from './wire/chat-completions';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const answers = new Ajv({ allErrors: true, discriminator: true, allowUnionTypes: true });
const isChunk = answers.compile(ChatCompletionChunk);
const isCompletion = answers.compile(ChatCompletion);

async function setup(upstream: FakeUpstream) {
  const db = new SqliteDatabase({ schemas: [accountsSchema, modelsSchema, storedCompletionsSchema] });
  const account = await new Accounts(db).create({ name: 'a' });
  const config = loadConfig({ FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) });
  const models = createModels({ db, config, log: silentLogger });
  cleanups.push(async () => {
    await models.close();
    await db.close();
    await upstream.close();
  });
  return { completions: models.chat.completions, usage: models.usage, accountId: account.id };
}

const ask = { model: 'fake/m', messages: [{ role: 'user' as const, content: 'Tides?' }] };

describe('fathom.chat.completions.create', () => {
  it('answers a chat.completion as the SDK types it, and keeps it with store: true', async () => {
    const { completions, accountId } = await setup(await createFakeOpenAIUpstream([{ content: 'Twice a day.' }]));
    const completion = await completions.create(accountId, { ...ask, store: true, metadata: { topic: 'sea' } });
    expect(isCompletion(completion), JSON.stringify(isCompletion.errors)).toBe(true);
    expect(completion.choices[0]!.message.content).toBe('Twice a day.');
    expect(await completions.retrieve(accountId, completion.id)).toEqual({ ...completion, metadata: { topic: 'sea' } });
    expect((await completions.messages.list(accountId, completion.id)).data).toEqual([
      { id: `${completion.id}-0`, role: 'user', content: 'Tides?', refusal: null, content_parts: null },
    ]);
  });

  it('streams chunks as objects or as the same JSON text, stores the assembled answer, and ends with the usage chunk', async () => {
    const words = { content: 'The tide turns.', usage: { prompt_tokens: 3, completion_tokens: 4 } };
    const { completions, accountId } = await setup(await createFakeOpenAIUpstream([words, words]));
    const params = { ...ask, stream: true as const, stream_options: { include_usage: true }, store: true };

    const stream = await completions.create(accountId, params);
    expect(stream).toBeInstanceOf(ChatCompletionStream);
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const chunk of chunks) expect(isChunk(chunk), JSON.stringify(isChunk.errors)).toBe(true);
    expect(chunks.every((chunk) => chunk.id === stream.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('The tide turns.');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
    await expect(async () => {
      for await (const _chunk of stream) void _chunk;
    }).rejects.toThrow('read once');
    const stored = await completions.retrieve(accountId, stream.id);
    expect(stored.choices[0]).toMatchObject({ message: { content: 'The tide turns.' }, finish_reason: 'stop' });

    const texts: string[] = [];
    const again = await completions.create(accountId, params);
    for await (const text of again.jsonChunks()) texts.push(text);
    const parsed = texts.map((text) => JSON.parse(text) as ChatCompletionChunk);
    expect(parsed.map((chunk) => JSON.stringify(chunk))).toEqual(texts);
    expect(parsed.map((chunk) => ({ ...chunk, id: stream.id, created: 0 }))).toEqual(chunks.map((chunk) => ({ ...chunk, created: 0 })));
  });

  it('throws the upstream refusal from create, before anything streamed', async () => {
    const { completions } = await setup(await createFakeOpenAIUpstream([{ error: { status: 429, message: 'slow down' } }]));
    await expect(completions.create('acct_1', { ...ask, stream: true })).rejects.toMatchObject({ status: 429, message: /slow down/ });
  });

  it('ends the upstream call when the reader stops early, and counts the call', async () => {
    const upstream = await createFakeOpenAIUpstream([{ content: 'one two three four five six seven eight', delayMs: 100 }]);
    const { completions, usage } = await setup(upstream);
    const stream = await completions.create('acct_2', { ...ask, stream: true });
    let seen = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++seen === 2) break;
    await upstream.waitForClose(3000);
    expect(upstream.closedEarly).toBe(1);
    expect((await usage.list('acct_2')).data).toMatchObject([{ model: 'fake/m', requests: 1 }]);
  });
});
