import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../../core/src/documents/__fixtures__/make-documents';
import { startFathom } from './harness';

describe('ingestion survives a restart', () => {
  it('finishes files left in_progress when the server stops mid-ingestion', async () => {
    const first = await startFathom();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const data =
        i % 2
          ? await makePdf([`Restart document ${i} mentions the code RST-${i}`])
          : Buffer.from(`Restart document ${i} mentions the code RST-${i}`);
      const file = await first.client.files.create({
        file: await toFile(Buffer.from(data), `doc-${i}.${i % 2 ? 'pdf' : 'txt'}`),
        purpose: 'assistants',
      });
      ids.push(file.id);
    }
    const store = await first.client.vectorStores.create({ name: 'restart', file_ids: ids });
    // Stop at once: the queue is mid-way (some files running, the rest queued).
    expect((await first.client.vectorStores.retrieve(store.id)).file_counts.in_progress).toBeGreaterThan(0);
    await first.close({ keepData: true });

    const second = await startFathom({ dataDir: first.dataDir });
    try {
      for (const id of ids) {
        const file = await second.client.vectorStores.files.poll(store.id, id, { pollIntervalMs: 50 });
        expect(file.status).toBe('completed');
      }
      expect((await second.client.vectorStores.retrieve(store.id)).file_counts).toEqual({
        in_progress: 0,
        completed: 6,
        failed: 0,
        cancelled: 0,
        total: 6,
      });
      const hits = await second.client.vectorStores.search(store.id, { query: 'RST-3' });
      expect(hits.data[0]!.file_id).toBe(ids[3]);
    } finally {
      await second.close({ keepData: false });
    }
  });

  it('resumes work queued while background processing was off', async () => {
    const first = await startFathom({ start: false });
    const file = await first.client.files.create({
      file: await toFile(Buffer.from('Queued while stopped: glacier survey'), 'queued.txt'),
      purpose: 'assistants',
    });
    const store = await first.client.vectorStores.create({ name: 'queued', file_ids: [file.id] });
    expect((await first.client.vectorStores.files.retrieve(file.id, { vector_store_id: store.id })).status).toBe('in_progress');
    await first.close({ keepData: true });
    const second = await startFathom({ dataDir: first.dataDir });
    try {
      const done = await second.client.vectorStores.files.poll(store.id, file.id, { pollIntervalMs: 50 });
      expect(done.status).toBe('completed');
    } finally {
      await second.close({ keepData: false });
    }
  });
});
