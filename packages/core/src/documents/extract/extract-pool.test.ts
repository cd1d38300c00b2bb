import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDocxBomb, makePdf } from '../__fixtures__/make-documents';
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
});
