import { describe, expect, it } from 'vitest';
import { fakeEmbedder } from './__fixtures__/fakes';
import { chunkText } from './chunking';
import { mergeChunks } from './merge-chunks';

const chunksOf = async (text: string, max: number, overlap: number) => {
  const out: string[] = [];
  for await (const chunk of chunkText(text, fakeEmbedder(), { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap }))
    out.push(chunk.text);
  return out;
};

describe('mergeChunks', () => {
  it('restores the text from overlapping chunks, also with repeated phrases', async () => {
    const text = Array.from({ length: 700 }, (_, i) => (i % 50 === 0 ? 'the same phrase again and again' : `w${i % 37}`)).join(' ');
    const chunks = await chunksOf(text, 100, 40);
    expect(chunks.length).toBeGreaterThan(5);
    expect(mergeChunks(chunks)).toBe(text);
  });

  it('joins chunks without overlap with a line break and handles one or no chunk', async () => {
    const text = Array.from({ length: 250 }, (_, i) => `t${i}`).join(' ');
    const chunks = await chunksOf(text, 100, 0);
    expect(mergeChunks(chunks).split(/\s+/)).toEqual(text.split(' '));
    expect(mergeChunks(['only'])).toBe('only');
    expect(mergeChunks([])).toBe('');
  });
});
