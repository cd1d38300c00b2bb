import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let plain: TestFathom;
let withModel: TestFathom;

const handbook = 'Refunds for cancelled boat tours are paid within five working days to the original card.';

/** `POST /v1/vector_stores/{id}/search` as JSON (the SDK's page object hides `search_query`). */
async function search(server: TestFathom, storeId: string, body: object) {
  const response = await server.request(`/v1/vector_stores/${storeId}/search`, { method: 'POST', json: body });
  expect(response.status).toBe(200);
  return (await response.json()) as { search_query: string[]; data: Array<{ filename: string }> };
}

async function storeWithHandbook(server: TestFathom): Promise<string> {
  const file = await server.client.files.create({ file: await toFile(Buffer.from(handbook), 'handbook.md'), purpose: 'assistants' });
  const store = await server.client.vectorStores.create({ name: 'harbour' });
  expect((await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id })).status).toBe('completed');
  return store.id;
}

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  plain = await startFathom();
  withModel = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_QUERY_REWRITE_MODEL: 'fake/rewriter',
    },
  });
});

afterAll(async () => {
  await plain?.close({ keepData: false });
  await withModel?.close({ keepData: false });
  await upstream?.close();
});

describe('files with expires_after', () => {
  it('sets expires_at from the SDK’s expires_after and refuses bad values naming the field', async () => {
    const file = await plain.client.files.create({
      file: await toFile(Buffer.from('short-lived'), 'temp.txt'),
      purpose: 'assistants',
      expires_after: { anchor: 'created_at', seconds: 7200 },
    });
    expect(file.expires_at).toBe(file.created_at + 7200);
    expect((await plain.client.files.retrieve(file.id)).expires_at).toBe(file.created_at + 7200);
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    form.append('purpose', 'assistants');
    form.append('expires_after[anchor]', 'created_at');
    form.append('expires_after[seconds]', '10');
    const refused = await plain.request('/v1/files', { method: 'POST', body: form });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { param: 'expires_after.seconds', type: 'invalid_request_error' } });
    for (const [field, value, param] of [
      ['expires_after[anchor]', 'last_active_at', 'expires_after.anchor'],
      ['expires_after[seconds]', '2592001', 'expires_after.seconds'],
      ['expires_after[seconds]', 'soon', 'expires_after.seconds'],
    ]) {
      const form = new FormData();
      form.append('file', new Blob(['x']), 'x.txt');
      form.append('purpose', 'assistants');
      form.append('expires_after[anchor]', 'created_at');
      form.append('expires_after[seconds]', '7200');
      form.set(field!, value!);
      const answer = await plain.request('/v1/files', { method: 'POST', body: form });
      expect(answer.status, `${field}=${value}`).toBe(400);
      expect(await answer.json()).toMatchObject({ error: { param, type: 'invalid_request_error' } });
    }
    // A file that does not expire has no `expires_at` and no `status_details` (the SDK types both optional, not nullable).
    const kept = await plain.client.files.create({ file: await toFile(Buffer.from('kept'), 'kept.txt'), purpose: 'assistants' });
    expect(kept).not.toHaveProperty('expires_at');
    expect(kept).not.toHaveProperty('status_details');
    const listed = (await plain.client.files.list()).data.find((file) => file.id === kept.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('expires_at');
    expect(await plain.client.files.retrieve(kept.id)).not.toHaveProperty('status_details');
  });
});

describe('search with rewrite_query', () => {
  it('without a configured model, searches the lexical rewrite and shows it in search_query', async () => {
    const storeId = await storeWithHandbook(plain);
    const page = await search(plain, storeId, {
      query: 'Could you tell me how long refunds for a cancelled boat tour take?',
      rewrite_query: true,
    });
    expect(page.search_query).toEqual(['long refunds cancelled boat tour take']);
    expect(page.data[0]?.filename).toBe('handbook.md');
    const unchanged = await search(plain, storeId, { query: 'boat tour refunds' });
    expect(unchanged.search_query).toEqual(['boat tour refunds']);
  });

  it('with FATHOM_QUERY_REWRITE_MODEL, asks that model and searches its answer', async () => {
    const storeId = await storeWithHandbook(withModel);
    upstream.push({ content: 'refund boat tour' });
    const page = await search(withModel, storeId, { query: 'money back for my cancelled trip on the water?', rewrite_query: true });
    expect(page.search_query).toEqual(['refund boat tour']);
    expect(page.data[0]?.filename).toBe('handbook.md');
    const asked = upstream.requests.at(-1);
    expect(asked.model).toBe('rewriter');
    expect(asked.messages.at(-1)).toEqual({ role: 'user', content: 'money back for my cancelled trip on the water?' });
  });
});
