import { describe, expect, it } from 'vitest';
import { fakeEmbedder } from './__fixtures__/fakes';
import { chunkText, resolveChunking, type TextChunk } from './chunking';

const collect = async (text: string, max: number, overlap: number) => {
  const out: TextChunk[] = [];
  for await (const chunk of chunkText(text, fakeEmbedder(), { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap })) out.push(chunk);
  return out;
};

describe('resolveChunking', () => {
  it('resolves auto to 800/400, fitted under the embedder window', () => {
    expect(resolveChunking(undefined, 8192)).toEqual({ max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 });
    expect(resolveChunking({ type: 'auto' }, 256)).toEqual({ max_chunk_size_tokens: 256, chunk_overlap_tokens: 128 });
  });
  it('keeps static sizes and refuses an overlap over half the size, naming the field', () => {
    // Types and ranges (100..4096) are the schema's; the half rule is the one it cannot say.
    expect(resolveChunking({ type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 } }, 512)).toEqual({
      max_chunk_size_tokens: 100,
      chunk_overlap_tokens: 50,
    });
    expect(() =>
      resolveChunking(
        { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } },
        512,
        'files[2].chunking_strategy',
      ),
    ).toThrow(
      expect.objectContaining({
        param: 'files[2].chunking_strategy.static.chunk_overlap_tokens',
        message: expect.stringMatching(/must not exceed half of max_chunk_size_tokens \(100\)/),
      }),
    );
  });
});

describe('chunkText', () => {
  it('covers every token in windows of at most max tokens with the requested overlap', async () => {
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`);
    const chunks = await collect(words.join(' '), 100, 20);
    expect(chunks.every((c) => c.tokens <= 100)).toBe(true);
    expect(chunks[0]!.text.startsWith('w0 ')).toBe(true);
    expect(chunks.at(-1)!.text.endsWith('w999')).toBe(true);
    // Consecutive windows share exactly the overlap.
    const first = chunks[0]!.text.split(' ');
    const second = chunks[1]!.text.split(' ');
    expect(second.slice(0, 20)).toEqual(first.slice(-20));
    const seen = new Set(chunks.flatMap((c) => c.text.split(' ')));
    expect(seen.size).toBe(1000);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  });

  it('prefers ending a window at a paragraph break', async () => {
    const para = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
    const text = `${para(90, 'a')}.\n\n${para(90, 'b')}.`;
    const chunks = await collect(text, 100, 0);
    expect(chunks[0]!.text.endsWith('a89.')).toBe(true);
    expect(chunks[1]!.text.startsWith('b0')).toBe(true);
  });

  it('returns one chunk for short text and none for empty text', async () => {
    expect(await collect('just a few words', 100, 50)).toEqual([{ index: 0, text: 'just a few words', tokens: 4, start: 0, end: 16 }]);
    expect(await collect('   ', 100, 50)).toEqual([]);
  });

  it('handles text larger than one tokenizer segment without losing tokens', async () => {
    const words = Array.from({ length: 30_000 }, (_, i) => `t${i}`);
    const chunks = await collect(words.join(' '), 800, 400);
    const seen = new Set(chunks.flatMap((c) => c.text.split(' ')));
    expect(seen.size).toBe(30_000);
    expect(chunks.every((c) => c.tokens <= 800)).toBe(true);
  });
});
