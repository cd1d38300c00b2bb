import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../embeddings';
import { FakeVectorIndex } from './__fixtures__/fakes';
import { Ingestor } from './ingestor';

const dir = mkdtempSync(join(tmpdir(), 'fathom-ingestor-'));
const text = Array.from({ length: 900 }, (_, i) => `word${i % 97} sentence ${i}${i % 20 === 19 ? '.\n\n' : ''}`).join(' ');
const path = join(dir, 'doc.txt');
writeFileSync(path, text);
const chunking = { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 };

describe('Ingestor', () => {
  const embedder = new HashEmbedder();
  const inWorker = new Ingestor({ embedder, vectorIndex: new FakeVectorIndex() });
  const inline = new Ingestor({ embedder, vectorIndex: new FakeVectorIndex(), embedInWorker: false, batchSize: 3 });
  afterAll(async () => {
    await inWorker.close();
    await inline.close();
  });

  it('embeds a hash store in the worker with exactly the vectors the main thread would compute', async () => {
    expect(inWorker.embedsInWorker).toBe(true);
    expect(inline.embedsInWorker).toBe(false);
    const indexA = new FakeVectorIndex();
    const indexB = new FakeVectorIndex();
    const a = new Ingestor({ embedder, vectorIndex: indexA });
    const b = new Ingestor({ embedder, vectorIndex: indexB, embedInWorker: false, batchSize: 3 });
    try {
      const input = { storeId: 'vs_1', fileId: 'file-1', filename: 'doc.txt', path, attributes: { k: 1 }, chunking };
      const resultA = await a.ingest(input);
      const resultB = await b.ingest(input);
      expect(resultA).toEqual(resultB);
      expect(resultA.chunks).toBeGreaterThan(5);
      const chunksA = indexA.stores.get('vs_1')!.get('file-1')!.chunks;
      const chunksB = indexB.stores.get('vs_1')!.get('file-1')!.chunks;
      expect(chunksA.map((c) => c.text)).toEqual(chunksB.map((c) => c.text));
      chunksA.forEach((chunk, i) => expect(Array.from(chunk.vector)).toEqual(Array.from(chunksB[i]!.vector)));
      const { embeddings } = await embedder.embed({ values: [chunksA[2]!.text] });
      expect(Array.from(chunksA[2]!.vector)).toEqual(Array.from(embeddings[0]!));
      expect(resultA.usageBytes).toBe(chunksA.reduce((n, c) => n + Buffer.byteLength(c.text) + c.vector.byteLength, 0));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reports extraction failures from either path with the same code and message', async () => {
    const bad = join(dir, 'bad.pdf');
    writeFileSync(bad, '%PDF-1.5 nope');
    const input = { storeId: 'vs_1', fileId: 'file-2', filename: 'bad.pdf', path: bad, attributes: null, chunking };
    const errorOf = (ingestor: Ingestor) =>
      ingestor.ingest(input).then(
        () => null,
        (error) => ({ code: error.code, message: error.message }),
      );
    const [a, b] = [await errorOf(inWorker), await errorOf(inline)];
    expect(a).toMatchObject({ code: 'invalid_file', message: expect.stringMatching(/^PDF is corrupt/) });
    expect(b).toEqual(a);
  });
});
