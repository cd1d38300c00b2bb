/**
 * A full disk under the data dir. The data dir is a real 48 MB tmpfs mounted for this test (tests run
 * as root here); where mounting is impossible the test fails loudly instead of passing without the
 * fault. Wanted: no crash, no hot loop, the failing file waits while nothing can be written and ends
 * `failed` with `last_error` once a write can record why, reads keep working, the server starts on
 * the full disk, it recovers by itself once space is freed, and SQLite stays intact.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

const mountPoint = mkdtempSync(join(tmpdir(), 'fathom-disk-full-'));
const filler = join(mountPoint, 'filler.bin');

function mountSmallDisk(): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(
      `The disk-full test needs a small filesystem and could not mount a 48 MB tmpfs at ${mountPoint} ` +
        `(it needs root or CAP_SYS_ADMIN): ${(error as Error).message}`,
    );
  }
}

/** Writes zeros until the filesystem refuses (ENOSPC): nothing is left for anyone. */
function fillDisk(): void {
  const fd = openSync(filler, 'a');
  const block = Buffer.alloc(1 << 20);
  try {
    for (let size = block.length; size >= 512; ) {
      try {
        writeSync(fd, block, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size >>= 1;
      }
    }
  } finally {
    closeSync(fd);
  }
}

const upload = (server: TestFathom, name: string, text: string) => {
  const form = new FormData();
  form.append('purpose', 'assistants');
  form.append('file', new Blob([text]), name);
  return server.request('/v1/files', { method: 'POST', body: form });
};

/** CPU time this process spends over `ms` while idle-waiting, as a share of one core. */
async function cpuShare(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The private documents capability of a `Fathom`, as far as this test reaches into it. */
type InternalDocuments = { documents: { core: { queue: { close(): Promise<void> } } } };

describe('a full disk under the data dir (48 MB tmpfs)', () => {
  let server: TestFathom | undefined;

  beforeAll(() => {
    mountSmallDisk();
  });

  afterAll(async () => {
    await server?.close().catch(() => {});
    try {
      execFileSync('umount', [mountPoint], { stdio: 'pipe' });
    } finally {
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  it('keeps serving, fails the file it cannot index, starts on the full disk and recovers when space frees', async () => {
    const dataDir = join(mountPoint, 'data');
    server = await startFathom({ dataDir, start: false });
    const { client } = server;
    const before = await client.files.create({
      file: new File(['Sea otters hold hands while sleeping.'], 'otters.txt'),
      purpose: 'assistants',
    });
    const pending = await client.files.create({
      // About 1.5 MB of text: its chunks need more than the half megabyte freed below.
      file: new File(
        [Array.from({ length: 30_000 }, (_, i) => `Lighthouse keeper log entry ${i}: the lamp was lit.`).join('\n')],
        'log.txt',
      ),
      purpose: 'assistants',
    });
    const store = await client.vectorStores.create({ name: 'docs', file_ids: [before.id] });
    server.fathom.start();
    await poll(
      () => client.vectorStores.retrieve(store.id),
      (value) => value.status === 'completed',
    );
    // Queued while space is left, indexed once the disk is full. The queue stops in this server, whose
    // database files stay as ingestion left them (a restart here would let the later claim fit on the
    // full disk); the queue is internal to the documents capability, hence the cast.
    await (server.fathom as unknown as InternalDocuments).documents.core.queue.close();
    const queued = await client.vectorStores.files.create(store.id, { file_id: pending.id });
    expect(queued.status).toBe('in_progress');

    fillDisk();
    // Uploads answer 507 in the error shape and leave no partial file behind.
    const refused = await upload(server, 'more.txt', 'x'.repeat(200_000));
    expect(refused.status).toBe(507);
    expect(await refused.json()).toMatchObject({ error: { code: 'insufficient_storage', type: 'server_error' } });

    // Every later request answers within seconds, over the connections the clients keep alive: uploads that
    // fail half-way (8 MB, most of it still unsent) answer 507 and leave no unread bytes that stall the next
    // request; writes of JSON objects answer 507 too, reads answer.
    const answers: Array<[string, number, number]> = [];
    const timed = async (what: string, call: () => Promise<number>) => {
      const started = performance.now();
      answers.push([what, await call(), performance.now() - started]);
    };
    const eightMegabytes = () => new File([new Uint8Array(8_000_000).fill(65)], 'eight.txt');
    for (let i = 0; i < 3; i++) {
      await timed('SDK upload', () =>
        client.files.create({ file: eightMegabytes(), purpose: 'assistants' }).then(
          () => 200,
          (error) => error.status ?? -1,
        ),
      );
      await timed('fetch upload', async () => {
        const form = new FormData();
        form.append('purpose', 'assistants');
        form.append('file', eightMegabytes());
        return (await server!.request('/v1/files', { method: 'POST', body: form, signal: AbortSignal.timeout(20_000) })).status;
      });
      await timed('vector store', () =>
        client.vectorStores.create({ name: `full ${i}` }).then(
          () => 200,
          (error) => error.status ?? -1,
        ),
      );
      await timed('list files', () => client.files.list().then(() => 200));
    }
    expect(answers.map(([what, status]) => `${what} ${status}`)).toEqual(
      Array.from({ length: 3 }, () => ['SDK upload 507', 'fetch upload 507', 'vector store 507', 'list files 200']).flat(),
    );
    expect(Math.max(...answers.map(([, , ms]) => ms))).toBeLessThan(5_000);

    // Restart on the full disk: the server starts and reads answer; the queued file waits (nothing can be written).
    await server.close();
    server = await startFathom({ dataDir });
    const restarted = server;
    expect((await restarted.request('/health')).status).toBe(200);
    expect((await restarted.client.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ completed: 1, in_progress: 1 });
    const hits = await restarted.client.vectorStores.search(store.id, { query: 'otters sleeping' });
    expect(hits.data[0]?.file_id).toBe(before.id);
    expect((await restarted.client.files.list()).data.map((file) => file.id).sort()).toEqual([before.id, pending.id].sort());
    expect((await restarted.client.vectorStores.files.retrieve(pending.id, { vector_store_id: store.id })).status).toBe('in_progress');
    // No hot loop: claims that cannot be written back off, the process idles and answers at once.
    expect(await cpuShare(1500)).toBeLessThan(0.3);
    const started = performance.now();
    expect((await restarted.request('/health')).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);

    // A little space back (not enough for the file's chunks): the file ends failed with the reason, still no loop.
    truncateSync(filler, statSync(filler).size - 512 * 1024);
    const failed = await poll(
      () => restarted.client.vectorStores.files.retrieve(pending.id, { vector_store_id: store.id }),
      (value) => value.status !== 'in_progress',
      40_000,
    );
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatchObject({ code: 'server_error', message: expect.stringMatching(/storage space/) });
    expect((await restarted.client.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ completed: 1, failed: 1, in_progress: 0 });
    expect(await cpuShare(1000)).toBeLessThan(0.3);
    expect((await restarted.client.vectorStores.search(store.id, { query: 'otters sleeping' })).data[0]?.file_id).toBe(before.id);

    // Space comes back: uploads and ingestion work again without a restart.
    rmSync(filler);
    const retried = await restarted.client.vectorStores.files.create(store.id, { file_id: pending.id });
    expect(retried.status).toBe('in_progress');
    const done = await poll(
      () => restarted.client.vectorStores.files.retrieve(pending.id, { vector_store_id: store.id }),
      (value) => value.status !== 'in_progress',
    );
    expect(done).toMatchObject({ status: 'completed', last_error: null });
    const after = await upload(restarted, 'after.txt', 'Written once space was back.');
    expect(after.status).toBe(200);
    const [hit] = (await restarted.client.vectorStores.search(store.id, { query: 'lighthouse keeper lamp' })).data;
    expect(hit?.file_id).toBe(pending.id);
    expect(await restarted.fathom.database.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
  });
});
