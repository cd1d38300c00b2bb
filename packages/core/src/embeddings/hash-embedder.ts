import type { Embedder } from './embedder';
import { STOP_WORDS } from './stop-words';
import { foldWord, normalizeInPlace, wordSpans } from './text-tokens';

export interface HashEmbedderOptions {
  /** Vector length; default 512. More dimensions mean fewer hash collisions. */
  dimensions?: number;
  /** Input window reported to the chunker; default 512 tokens (words and punctuation). */
  maxInputTokens?: number;
}

// Feature kinds hash with different seeds so `word:ab` and `gram:ab` land in different buckets.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const SEED_WORD = 0x811c9dc5;
const SEED_GRAM = 0x01000193;
const SEED_PAIR = 0x2545f491;
const SEED_IDENT = 0x9e3779b9;

const WEIGHT_WORD = 1;
const WEIGHT_STOP = 0.1;
const WEIGHT_PAIR = 0.6;
const WEIGHT_IDENT = 1.5;
/** Total weight of one word's character trigrams (split among them). */
const WEIGHT_GRAMS = 0.9;

function hashString(text: string, seed: number, from = 0, to = text.length): number {
  let hash = seed >>> 0;
  for (let i = from; i < to; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // Final avalanche (murmur3 fmix) so nearby strings spread over buckets and sign bits.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * Model-free embeddings: hashed word unigrams, word bigrams, whole identifiers and character
 * trigrams (fuzzy and morphological matches), each weighted, with sublinear term frequency and
 * signed feature hashing, L2-normalised. Deterministic, fast, and good at lexical matches; it knows
 * no synonyms. Its id carries the version and dimensions, so a store built with it can always be
 * re-created exactly.
 */
export class HashEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly maxInputTokens: number;

  constructor(options: HashEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 512;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 16) throw new Error('HashEmbedder dimensions must be an integer >= 16.');
    this.maxInputTokens = options.maxInputTokens ?? 512;
    this.id = `hash:v1:${this.dimensions}`;
  }

  /** Parses `hash:v1:<dimensions>` back into an embedder (stores remember the id). */
  static fromId(id: string): HashEmbedder | null {
    const match = /^hash:v1:(\d+)$/.exec(id);
    return match ? new HashEmbedder({ dimensions: Number(match[1]) }) : null;
  }

  async embed(options: { values: string[]; signal?: AbortSignal }): Promise<{ embeddings: Float32Array[] }> {
    options.signal?.throwIfAborted();
    return { embeddings: options.values.map((value) => this.embedOne(value)) };
  }

  countTokens(text: string): number {
    return wordSpans(text).length;
  }

  tokenize(text: string): Array<{ start: number; end: number }> {
    return wordSpans(text);
  }

  /** Embeds one text synchronously. */
  embedOne(text: string): Float32Array {
    const features = new Map<number, number>();
    const add = (hash: number, weight: number) => features.set(hash, (features.get(hash) ?? 0) + weight);
    let previous: string | null = null;
    // A "run" is a stretch of words joined without whitespace (ERR_QUOTA_7731, v2.3.1, user@example.com):
    // besides its words it counts as one identifier feature.
    let runStart = -1;
    let runEnd = -1;
    let runWords = 0;
    let runDigits = false;
    const closeRun = () => {
      if (runWords > 1 || (runWords === 1 && runDigits)) add(hashString(foldWord(text.slice(runStart, runEnd)), SEED_IDENT), WEIGHT_IDENT);
    };
    WORD.lastIndex = 0;
    for (let match = WORD.exec(text); match; match = WORD.exec(text)) {
      const start = match.index;
      const raw = match[0];
      if (runEnd >= 0 && !/\s/.test(text.slice(runEnd, start))) {
        runWords++;
      } else {
        if (runEnd >= 0) closeRun();
        runStart = start;
        runWords = 1;
        runDigits = false;
      }
      runEnd = start + raw.length;
      if (!runDigits && /\d/.test(raw)) runDigits = true;
      const word = foldWord(raw);
      if (STOP_WORDS.has(word)) {
        add(hashString(word, SEED_WORD), WEIGHT_STOP);
        continue;
      }
      add(hashString(word, SEED_WORD), WEIGHT_WORD);
      if (previous !== null) add(hashString(`${previous} ${word}`, SEED_PAIR), WEIGHT_PAIR);
      previous = word;
      const padded = `#${word}#`;
      const grams = padded.length - 2;
      if (grams > 1) {
        const weight = WEIGHT_GRAMS / Math.sqrt(grams);
        for (let i = 0; i < grams; i++) add(hashString(padded, SEED_GRAM, i, i + 3), weight);
      }
    }
    if (runEnd >= 0) closeRun();
    const vector = new Float32Array(this.dimensions);
    for (const [hash, weight] of features) {
      // Sublinear term frequency: a word repeated ten times is not ten times the evidence.
      const value = weight > 1 ? 1 + Math.log(weight) : weight;
      const bucket = (hash & 0x7fffffff) % this.dimensions;
      vector[bucket]! += hash & 0x80000000 ? -value : value;
    }
    return normalizeInPlace(vector);
  }
}
