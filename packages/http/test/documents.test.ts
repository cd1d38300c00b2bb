import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../../core/src/documents/__fixtures__/make-documents';
import { startFathom, type TestFathom } from './harness';

describe('documents through the openai SDK', () => {
  let server: TestFathom;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startFathom();
    client = server.client;
  });
  afterAll(() => server.close({ keepData: false }));

  it('uploads, lists, retrieves, downloads the exact bytes and deletes files', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 13, 10, 0x7f]);
    const file = await client.files.create({ file: await toFile(bytes, 'blob.bin'), purpose: 'assistants' });
    expect(file).toMatchObject({ object: 'file', bytes: bytes.length, filename: 'blob.bin', purpose: 'assistants' });
    expect(file.id).toMatch(/^file-/);
    expect(typeof file.created_at).toBe('number');
    const other = await client.files.create({ file: await toFile(Buffer.from('x'), 'x.jsonl'), purpose: 'batch' });
    expect(await client.files.retrieve(file.id)).toEqual(file);
    const content = Buffer.from(await (await client.files.content(file.id)).arrayBuffer());
    expect(content.equals(bytes)).toBe(true);
    const onlyAssistants = await client.files.list({ purpose: 'assistants' });
    expect(onlyAssistants.data.map((f) => f.id)).toEqual([file.id]);
    const page = await client.files.list({ limit: 1 });
    expect(page.data.map((f) => f.id)).toEqual([other.id]);
    expect(page.has_more).toBe(true);
    const all: string[] = [];
    for await (const f of client.files.list({ limit: 1 })) all.push(f.id);
    expect(all).toEqual([other.id, file.id]);
    expect(await client.files.delete(other.id)).toEqual({ id: other.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(other.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('creates a store from PDF, DOCX, HTML and Markdown files, polls to completed and searches it', async () => {
    const upload = async (data: Uint8Array | string, name: string) =>
      client.files.create({ file: await toFile(Buffer.from(data), name), purpose: 'assistants' });
    const pdf = await upload(await makePdf(['The warranty covers the Zephyr-9 pump for five years.']), 'warranty.pdf');
    const docx = await upload(await makeDocx(['Onboarding: new hires receive a laptop on day one.']), 'onboarding.docx');
    const html = await upload('<html><body><script>evil()</script><p>Parking is free on weekends.</p></body></html>', 'parking.html');
    const md = await upload('# Refunds\n\nRefunds are issued within 14 days of purchase.', 'refunds.md');
    const store = await client.vectorStores.create({ name: 'handbook', file_ids: [pdf.id, docx.id], metadata: { team: 'ops' } });
    expect(store).toMatchObject({ object: 'vector_store', name: 'handbook', metadata: { team: 'ops' }, status: 'in_progress' });
    expect(store.file_counts.total).toBe(2);
    const added = await client.vectorStores.files.createAndPoll(store.id, { file_id: html.id, attributes: { kind: 'web', year: 2024 } });
    expect(added).toMatchObject({
      object: 'vector_store.file',
      id: html.id,
      status: 'completed',
      attributes: { kind: 'web', year: 2024 },
      vector_store_id: store.id,
    });
    expect(added.chunking_strategy).toEqual({
      type: 'static',
      static: { max_chunk_size_tokens: expect.any(Number), chunk_overlap_tokens: expect.any(Number) },
    });
    const batch = await client.vectorStores.fileBatches.createAndPoll(store.id, { file_ids: [md.id] });
    expect(batch).toMatchObject({ object: 'vector_store.files_batch', status: 'completed', file_counts: { completed: 1, total: 1 } });
    const pdfFile = await client.vectorStores.files.poll(store.id, pdf.id, { pollIntervalMs: 50 });
    expect(pdfFile.status).toBe('completed');
    await client.vectorStores.files.poll(store.id, docx.id, { pollIntervalMs: 50 });
    const done = await client.vectorStores.retrieve(store.id);
    expect(done.file_counts).toEqual({ in_progress: 0, completed: 4, failed: 0, cancelled: 0, total: 4 });
    expect(done.status).toBe('completed');
    expect(done.usage_bytes).toBeGreaterThan(0);

    const results = await client.vectorStores.search(store.id, { query: 'How long is the Zephyr-9 warranty?' });
    expect(results.data[0]).toMatchObject({ file_id: pdf.id, filename: 'warranty.pdf' });
    expect(results.data[0]!.content[0]!.text).toContain('Zephyr-9');
    expect(results.data.every((hit) => hit.score >= 0 && hit.score <= 1)).toBe(true);
    const filtered = await client.vectorStores.search(store.id, {
      query: ['parking weekends', 'refunds'],
      max_num_results: 5,
      filters: {
        type: 'and',
        filters: [
          { type: 'eq', key: 'kind', value: 'web' },
          { type: 'gte', key: 'year', value: 2020 },
        ],
      },
    });
    expect(filtered.data.map((hit) => hit.file_id)).toEqual([html.id]);
    expect(filtered.data[0]!.content[0]!.text).not.toContain('evil');
    const content = await client.vectorStores.files.content(pdf.id, { vector_store_id: store.id });
    expect(content.data.map((part) => part.text).join(' ')).toContain('five years');
    const mdContent = await client.vectorStores.files.content(md.id, { vector_store_id: store.id });
    expect(mdContent.data).toEqual([{ type: 'text', text: '# Refunds\n\nRefunds are issued within 14 days of purchase.' }]);
    const updated = await client.vectorStores.files.update(html.id, { vector_store_id: store.id, attributes: { kind: 'print' } });
    expect(updated.attributes).toEqual({ kind: 'print' });
    const none = await client.vectorStores.search(store.id, { query: 'parking', filters: { type: 'eq', key: 'kind', value: 'web' } });
    expect(none.data).toEqual([]);
  });

  it('uploads and polls with the SDK helpers, lists and filters store files and batch files', async () => {
    const store = await client.vectorStores.create({ name: 'helpers' });
    const single = await client.vectorStores.files.uploadAndPoll(
      store.id,
      await toFile(Buffer.from('Solo document about lighthouses.'), 'solo.txt'),
    );
    expect(single.status).toBe('completed');
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(store.id, {
      files: [
        await toFile(Buffer.from('Doc one about comets.'), 'one.txt'),
        await toFile(Buffer.from('%PDF-1.4 broken'), 'two.pdf'),
        await toFile(Buffer.from('Doc three about nebulae.'), 'three.md'),
      ],
    });
    expect(batch.status).toBe('completed');
    expect(batch.file_counts).toEqual({ in_progress: 0, completed: 2, failed: 1, cancelled: 0, total: 3 });
    const batchFiles = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id });
    expect(batchFiles.data).toHaveLength(3);
    const failed = await client.vectorStores.files.list(store.id, { filter: 'failed' });
    expect(failed.data).toHaveLength(1);
    expect(failed.data[0]!.last_error).toEqual({ code: 'invalid_file', message: expect.stringMatching(/^PDF is corrupt/) });
    const completed = await client.vectorStores.files.list(store.id, { filter: 'completed', order: 'asc' });
    expect(completed.data.map((f) => f.id)[0]).toBe(single.id);
    expect(completed.data).toHaveLength(3);
    const removed = await client.vectorStores.files.delete(single.id, { vector_store_id: store.id });
    expect(removed).toEqual({ id: single.id, object: 'vector_store.file.deleted', deleted: true });
    expect((await client.vectorStores.retrieve(store.id)).file_counts.total).toBe(3);
  });

  it('updates, lists and deletes stores; deleting a file updates every store', async () => {
    const file = await client.files.create({
      file: await toFile(Buffer.from('shared text about dolphins'), 'shared.txt'),
      purpose: 'assistants',
    });
    const a = await client.vectorStores.create({ name: 'a', file_ids: [file.id] });
    const b = await client.vectorStores.create({ name: 'b', file_ids: [file.id], expires_after: { anchor: 'last_active_at', days: 7 } });
    expect(b.expires_after).toEqual({ anchor: 'last_active_at', days: 7 });
    expect(b.last_active_at).toEqual(expect.any(Number));
    expect(b.expires_at).toBe((b.last_active_at ?? 0) + 7 * 86400);
    await client.vectorStores.files.poll(a.id, file.id, { pollIntervalMs: 50 });
    await client.vectorStores.files.poll(b.id, file.id, { pollIntervalMs: 50 });
    const renamed = await client.vectorStores.update(a.id, { name: 'renamed', metadata: { v: '2' }, expires_after: null });
    expect(renamed).toMatchObject({ name: 'renamed', metadata: { v: '2' } });
    // A store without expiry has no `expires_after` (the SDK types it optional, not nullable).
    expect(renamed).not.toHaveProperty('expires_after');
    const listed = await client.vectorStores.list({ limit: 100 });
    expect(listed.data.map((s) => s.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    await client.files.delete(file.id);
    for (const id of [a.id, b.id]) {
      const store = await client.vectorStores.retrieve(id);
      expect(store.file_counts.total).toBe(0);
      expect(store.usage_bytes).toBe(0);
      expect((await client.vectorStores.search(id, { query: 'dolphins' })).data).toEqual([]);
    }
    expect(await client.vectorStores.delete(b.id)).toEqual({ id: b.id, object: 'vector_store.deleted', deleted: true });
    await expect(client.vectorStores.retrieve(b.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('keeps file_counts and usage_bytes exact while files are added concurrently', async () => {
    const store = await client.vectorStores.create({ name: 'concurrent' });
    const files = await Promise.all(
      Array.from({ length: 24 }, async (_, i) =>
        client.files.create({
          file: await toFile(Buffer.from(`Concurrent file ${i} about topic ${i % 5}.`), `c${i}.txt`),
          purpose: 'assistants',
        }),
      ),
    );
    const snapshots: Array<{ file_counts: OpenAI.VectorStores.VectorStore['file_counts']; usage_bytes: number }> = [];
    const watcher = (async () => {
      for (let i = 0; i < 40; i++) snapshots.push(await client.vectorStores.retrieve(store.id));
    })();
    await Promise.all([
      ...files.slice(0, 16).map((file) => client.vectorStores.files.create(store.id, { file_id: file.id })),
      client.vectorStores.fileBatches.create(store.id, { file_ids: files.slice(16).map((file) => file.id) }),
    ]);
    await watcher;
    for (const { file_counts: counts } of snapshots) {
      expect(counts.in_progress + counts.completed + counts.failed + counts.cancelled).toBe(counts.total);
    }
    for (const file of files) await client.vectorStores.files.poll(store.id, file.id, { pollIntervalMs: 50 });
    const done = await client.vectorStores.retrieve(store.id);
    expect(done.file_counts).toEqual({ in_progress: 0, completed: 24, failed: 0, cancelled: 0, total: 24 });
    let usage = 0;
    for await (const file of client.vectorStores.files.list(store.id, { limit: 10 })) usage += file.usage_bytes;
    expect(done.usage_bytes).toBe(usage);
  });
});
