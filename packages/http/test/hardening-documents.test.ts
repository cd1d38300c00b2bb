import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

describe('hostile documents fail ingestion as the file’s fault', () => {
  let server: TestFathom;
  beforeAll(async () => {
    server = await startFathom();
  });
  afterAll(() => server.close({ keepData: false }));

  it('ends a 1,000,000-deep JSON document failed with invalid_file (not server_error), and keeps ingesting', async () => {
    const { client } = server;
    const deep = await client.files.create({
      file: await toFile(Buffer.from('['.repeat(1_000_000) + ']'.repeat(1_000_000)), 'deep.json'),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'hostile' });
    const failed = await client.vectorStores.files.createAndPoll(store.id, { file_id: deep.id });
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toEqual({ code: 'invalid_file', message: expect.stringContaining('JSON nests deeper than 256 levels') });
    const fine = await client.files.create({
      file: await toFile(Buffer.from('{"note": "glacier survey"}'), 'ok.json'),
      purpose: 'assistants',
    });
    expect((await client.vectorStores.files.createAndPoll(store.id, { file_id: fine.id })).status).toBe('completed');
  });
});
