import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { validateInput } from './read-input';
import { MAX_BATCH_REQUESTS } from './wire/batches';

function file(count: number, line: (index: number) => string): Readable {
  return Readable.from(
    (function* () {
      for (let index = 0; index < count; index++) yield `${line(index)}\n`;
    })(),
  );
}

const embedding = (index: number) =>
  JSON.stringify({ custom_id: `c${index}`, method: 'POST', url: '/v1/embeddings', body: { model: 'fake/e', input: `text ${index}` } });

describe('validateInput', () => {
  it('reads a 50,000-line file line by line and accepts it', async () => {
    const result = await validateInput(file(MAX_BATCH_REQUESTS, embedding), '/v1/embeddings');
    let bytes = 0;
    for (let index = 0; index < MAX_BATCH_REQUESTS; index++) bytes += Buffer.byteLength(embedding(index));
    // The hold's bounds: every line's bytes as input tokens, no output for embeddings.
    expect(result).toEqual({
      errors: [],
      total: MAX_BATCH_REQUESTS,
      model: 'fake/e',
      bounds: { inputTokensAtMost: bytes, outputTokens: 0, unboundedLines: 0 },
    });
  });

  it("sizes a chat batch's hold by each line's output bound, counting the lines without one", async () => {
    const chat = (index: number) =>
      JSON.stringify({
        custom_id: `c${index}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: 'fake/c', messages: [{ role: 'user', content: 'hi' }], ...(index % 2 ? { max_tokens: 30 } : {}) },
      });
    const result = await validateInput(file(4, chat), '/v1/chat/completions');
    expect(result.bounds).toMatchObject({ outputTokens: 60, unboundedLines: 2 });
  });

  it('stops at the request past 50,000, naming its line', async () => {
    const result = await validateInput(file(MAX_BATCH_REQUESTS + 10, embedding), '/v1/embeddings');
    expect(result.errors).toEqual([expect.objectContaining({ code: 'too_many_requests', line: MAX_BATCH_REQUESTS + 1 })]);
  });

  it('counts embedding inputs across lines against the batch limit', async () => {
    const many = (index: number) =>
      JSON.stringify({
        custom_id: `c${index}`,
        method: 'POST',
        url: '/v1/embeddings',
        body: { model: 'fake/e', input: Array(2048).fill('t') },
      });
    const result = await validateInput(file(30, many), '/v1/embeddings');
    expect(result.errors).toEqual([expect.objectContaining({ code: 'too_many_inputs', line: 25, param: 'body.input' })]);
  });

  it('reports at most 100 problems', async () => {
    const result = await validateInput(
      file(500, () => '{bad'),
      '/v1/chat/completions',
    );
    expect(result.errors).toHaveLength(100);
  });
});
