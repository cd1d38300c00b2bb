import { migrateData, silentLogger } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream, startTestPostgres, type TestPostgres } from '@fathom/core/test';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, type LedgerBody, startFathom, type TestFathom } from './harness';

/**
 * Growing up: a SQLite data dir with files, stores, money, responses and conversations is copied into
 * PostgreSQL by `fathom migrate-data`, and a server on PostgreSQL serves the same data — searches score
 * the same (vectors copied, not embedded again), keys work, conversations continue.
 */
let upstream: FakeUpstream;
let postgres: TestPostgres;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  postgres = await startTestPostgres();
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  await postgres?.close();
});

describe('migrate-data: SQLite data dir -> PostgreSQL', () => {
  it('copies everything, verifies the counts, and a PostgreSQL server serves the same data', async () => {
    const env = { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) };
    const sqlite: TestFathom = await startFathom({ env });
    const text = 'The harbour opens at dawn. Ferries leave at 7:15. Refunds take five working days.';
    const file = await sqlite.client.files.create({ file: await toFile(Buffer.from(text), 'harbour.md'), purpose: 'assistants' });
    const store = await sqlite.client.vectorStores.create({ name: 'harbour' });
    await sqlite.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id, attributes: { topic: 'ferries' } } as never);
    const before = await sqlite.client.vectorStores.search(store.id, { query: 'when do ferries leave' });
    const other = await sqlite.newAccount(42);
    const conversation = await sqlite.client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'I am Ana.' }] });
    upstream.push({ content: 'Hello Ana.' });
    const response = await sqlite.client.responses.create({ model: 'fake/m', conversation: conversation.id, input: 'Hi' });
    const ledger = await json<LedgerBody>(await sqlite.request('/v1/account/ledger'));
    await sqlite.close({ keepData: true });

    const lines: string[] = [];
    const report = await migrateData({
      dataDir: sqlite.dataDir,
      databaseUrl: postgres.url,
      log: silentLogger,
      progress: (line) => lines.push(line),
    });
    expect(report.ok).toBe(true);
    expect(report.tables.find((copy) => copy.table === 'accounts')).toMatchObject({ source: 2, target: 2 });
    expect(report.vectors).toEqual([{ storeId: store.id, source: expect.any(Number), target: expect.any(Number) }]);
    expect(report.vectors[0]!.target).toBe(report.vectors[0]!.source);
    expect(report.files).toEqual({ source: 1, target: 1 });
    await expect(migrateData({ dataDir: sqlite.dataDir, databaseUrl: postgres.url, log: silentLogger })).rejects.toThrow(/empty database/);

    const pg = await startFathom({ env: { ...env, FATHOM_DATABASE_URL: postgres.url }, dataDir: sqlite.dataDir });
    try {
      expect(pg.fathom.database.location).toMatch(/^postgres/);
      const after = await pg.client.vectorStores.search(store.id, { query: 'when do ferries leave' });
      expect(after.data.map((hit) => [hit.file_id, hit.score.toFixed(6), hit.attributes])).toEqual(
        before.data.map((hit) => [hit.file_id, hit.score.toFixed(6), hit.attributes]),
      );
      expect(Buffer.from(await (await pg.client.files.content(file.id)).arrayBuffer()).toString()).toBe(text);
      expect((await pg.client.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ completed: 1, total: 1 });
      expect((await json<AccountBody>(await pg.request('/v1/account', { apiKey: other.apiKey }))).balance).toBe(42);
      expect(await json<LedgerBody>(await pg.request('/v1/account/ledger'))).toEqual(ledger);
      expect((await pg.client.responses.retrieve(response.id)).output_text).toBe('Hello Ana.');
      upstream.push({ content: 'Still Ana.' });
      await pg.client.responses.create({ model: 'fake/m', conversation: conversation.id, input: 'Who am I?' });
      expect(upstream.requests.at(-1).messages.map((message: { content: string }) => message.content)).toEqual([
        'I am Ana.',
        'Hi',
        'Hello Ana.',
        'Who am I?',
      ]);
      // New rows continue after the copied ones (identity sequences moved on).
      await pg.client.vectorStores.create({ name: 'new' });
      const newer = await json<LedgerBody>(await pg.request('/v1/account/ledger'));
      expect(newer.data.length).toBeGreaterThanOrEqual(ledger.data.length);
    } finally {
      await pg.close({ keepData: false });
    }
  }, 180_000);
});
