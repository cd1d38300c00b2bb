/**
 * The conformance suite every Embedder passes (transformers, openai-compatible, hash): shapes,
 * normalisation, determinism, batching, similarity order, and token offsets the chunker can trust.
 */
import { describe, expect, it } from 'vitest';
import type { Embedder } from './embedder';

function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function describeEmbedderConformance(name: string, setup: () => Promise<Embedder>): void {
  describe(`${name} conforms to the Embedder contract`, () => {
    let embedder: Embedder;
    const get = async () => (embedder ??= await setup());

    it('has an identity, dimensions and an input window', async () => {
      const e = await get();
      expect(e.id).toMatch(/\S/);
      expect(Number.isInteger(e.dimensions) && e.dimensions > 0).toBe(true);
      expect(Number.isInteger(e.maxInputTokens) && e.maxInputTokens > 0).toBe(true);
    });

    it('embeds a batch into unit vectors of its dimensions, in input order', async () => {
      const e = await get();
      const values = ['reset the password', 'invoice and billing', 'kitten and puppy', ''];
      const { embeddings } = await e.embed({ values });
      expect(embeddings).toHaveLength(values.length);
      for (const vector of embeddings.slice(0, 3)) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector).toHaveLength(e.dimensions);
        expect(Math.abs(cosine(vector, vector) - 1)).toBeLessThan(1e-4);
      }
      const single = await e.embed({ values: ['kitten and puppy'] });
      expect(cosine(single.embeddings[0]!, embeddings[2]!)).toBeGreaterThan(0.999);
      expect((await e.embed({ values: [] })).embeddings).toEqual([]);
    });

    it('is deterministic and ranks related texts above unrelated ones', async () => {
      const e = await get();
      const { embeddings } = await e.embed({
        values: [
          'how do I reset my password',
          'reset password for the admin account',
          'rain and snow in the mountain weather',
          'how do I reset my password',
        ],
      });
      const [query, related, unrelated, again] = embeddings as [Float32Array, Float32Array, Float32Array, Float32Array];
      expect(cosine(query, again)).toBeGreaterThan(0.9999);
      expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated));
    });

    it('tokenizes into ordered offsets inside the text that agree with countTokens', async () => {
      const e = await get();
      const text = 'Résumé of ERR_QUOTA_7731: the server crashed twice, then recovered.\n\nSee https://example.com/a?b=c.';
      const spans = e.tokenize(text);
      expect(spans.length).toBe(e.countTokens(text));
      expect(spans.length).toBeGreaterThan(10);
      let previousEnd = 0;
      for (const span of spans) {
        expect(span.start).toBeGreaterThanOrEqual(previousEnd);
        expect(span.end).toBeGreaterThanOrEqual(span.start);
        expect(span.end).toBeLessThanOrEqual(text.length);
        previousEnd = span.end;
      }
      const covered = spans.map((span) => text.slice(span.start, span.end)).join('');
      expect(covered.replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      expect(e.tokenize('')).toEqual([]);
      expect(e.countTokens('one two three')).toBeGreaterThanOrEqual(3);
    });
  });
}
