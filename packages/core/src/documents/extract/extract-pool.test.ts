import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDocxBomb, makePdf, makePdfBomb } from '../__fixtures__/make-documents';
import { ExtractPool } from './extract-pool';

const dir = mkdtempSync(join(tmpdir(), 'fathom-extract-'));
const write = (name: string, data: Uint8Array | string) => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
};
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error) => ({ code: error.code, message: error.message }),
  );

describe('ExtractPool (worker threads)', () => {
  const pool = new ExtractPool({ threads: 1 });
  afterAll(() => pool.close());

  it('extracts in a worker thread', async () => {
    const path = write('a.pdf', await makePdf(['Worker extracted text']));
    expect(await pool.extract({ path, filename: 'a.pdf' })).toContain('Worker extracted text');
  });

  it('turns a DOCX decompression bomb into invalid_file and keeps working', async () => {
    const path = write('bomb.docx', makeDocxBomb(256));
    expect(await failure(pool.extract({ path, filename: 'bomb.docx' }))).toMatchObject({
      code: 'invalid_file',
      message: /decompression bomb/,
    });
    expect(await pool.extract({ path: write('ok.txt', 'still alive'), filename: 'ok.txt' })).toBe('still alive');
  });

  it('kills a parse that exceeds the memory cap and replaces the worker', async () => {
    const small = new ExtractPool({ threads: 1, memoryMb: 64 });
    try {
      const big = JSON.stringify(Array.from({ length: 400_000 }, (_, i) => ({ id: i, name: `item number ${i}`, tags: ['a', 'b'] })));
      const path = write('big.json', big);
      expect(await failure(small.extract({ path, filename: 'big.json' }))).toMatchObject({
        code: 'invalid_file',
        message: /more than 64 MB of memory/,
      });
      expect(await small.extract({ path: write('ok2.txt', 'fine again'), filename: 'ok2.txt' })).toBe('fine again');
    } finally {
      await small.close();
    }
  });

  it('gives up on a parse past its deadline', async () => {
    const slow = new ExtractPool({ threads: 1, timeoutMs: 30 });
    try {
      const path = write('slow.pdf', await makePdf(['x']));
      expect(await failure(slow.extract({ path, filename: 'slow.pdf' }))).toMatchObject({
        code: 'invalid_file',
        message: /took longer than/,
      });
    } finally {
      await slow.close();
    }
  });

  it('keeps the data a PDF decompresses inside the memory cap (ArrayBuffers are outside the V8 heap cap)', async () => {
    // pdf.js itself needs about 100 MB of heap: a 128 MB cap, and a 200 MB content stream in a small file.
    const small = new ExtractPool({ threads: 1, memoryMb: 128 });
    try {
      const bomb = await makePdfBomb(200);
      expect(bomb.byteLength).toBeLessThan(1_000_000);
      expect(await failure(small.extract({ path: write('bomb.pdf', bomb), filename: 'bomb.pdf' }))).toMatchObject({
        code: 'invalid_file',
        message: 'the data the file decompresses to needed more than 128 MB of memory (decompression bomb?)',
      });
      // The same worker goes on with the next file.
      const path = write('after.pdf', await makePdf(['Still extracting']));
      expect(await small.extract({ path, filename: 'after.pdf' })).toContain('Still extracting');
    } finally {
      await small.close();
    }
  });

  it("shares the threads between accounts: one account's queue of 12 PDFs does not hold another account's file behind it", async () => {
    const shared = new ExtractPool({ threads: 1 });
    try {
      const heavy = write('heavy.pdf', await makePdf(Array.from({ length: 40 }, (_, i) => `Page ${i} `.repeat(200))));
      const light = write('light.pdf', await makePdf(['Small file of the other account']));
      const done: string[] = [];
      const flood = Array.from({ length: 12 }, (_, i) =>
        shared.extract({ path: heavy, filename: 'heavy.pdf' }, { account: 'acct_a', interactive: true }).then(() => done.push(`a${i}`)),
      );
      await new Promise((resolve) => setImmediate(resolve));
      const other = shared.extract({ path: light, filename: 'light.pdf' }, { account: 'acct_b' }).then(() => done.push('b'));
      await Promise.all([...flood, other]);
      // At most the parse already running when it arrived goes first.
      expect(done.indexOf('b')).toBeLessThanOrEqual(1);
    } finally {
      await shared.close();
    }
  }, 60_000);
});
