/**
 * Synthetic corpus of the search benchmarks (`bench/search.bench.ts`, `bench/peers/`) and of the
 * ranking test (`vector/search-rankings.test.ts`): topical text of Zipf-distributed pseudo-words,
 * 8-word natural-language queries, and an embedder that stands in for a sentence model (see below).
 * One seeded generator (`rand`) drives it, so a fresh process always produces the same corpus.
 */
import { HashEmbedder, type Embedder } from '../embeddings';
import { seededRandom } from './seeded-random';

export const random = seededRandom;

export const TOPICS = 300;

export const rand = random(7);
const pick = <T>(items: readonly T[], next = rand) => items[Math.floor(next() * items.length)]!;
/** Zipf-like index in [0, n): small indexes are much more frequent. */
const zipf = (n: number, next = rand) => Math.min(n - 1, Math.floor(Math.exp(next() * Math.log(n + 1)) - 1));

const SYLLABLES = 'ka lo mi ne ra tu vi so pe da gri fal mon ter qui bas dor len vas cor pul sen tra mar fel ost'.split(' ');
function pseudoWord(next = rand): string {
  const length = 2 + Math.floor(next() * 3);
  return Array.from({ length }, () => pick(SYLLABLES, next)).join('');
}
const FUNCTION_WORDS =
  'the of and to in a is that for it as with was on be by this are or from at which an not have has can will their been more when there all also into other'.split(
    ' ',
  );
const vocabulary = [...new Set(Array.from({ length: 30_000 }, pseudoWord))];
// Each topic favours 150 words of the vocabulary; general words follow a global Zipf law.
const topicWords = Array.from({ length: TOPICS }, () =>
  Array.from({ length: 150 }, () => vocabulary[Math.floor(rand() * vocabulary.length)]!),
);

/** Topic of each topical word (a word may serve several topics; the first one wins). */
const wordTopic = new Map<string, number>();
topicWords.forEach((words, topic) => words.forEach((word) => wordTopic.has(word) || wordTopic.set(word, topic)));

/**
 * Stands in for a sentence-embedding model at no cost: a text's vector is the normalised mean of
 * its word vectors, where a topical word is its topic's centroid plus word-specific noise, other
 * words are noise alone, and function words nearly nothing. Texts of one topic cluster together,
 * as MiniLM embeddings of documents about one subject do.
 */
export class TopicAverageEmbedder implements Embedder {
  readonly id = 'bench:topic-average:384';
  readonly dimensions = 384;
  readonly maxInputTokens = 256;
  private readonly centroids = Array.from({ length: TOPICS }, (_, topic) => this.gaussian(1_000_003 + topic));
  private readonly cache = new Map<string, Float32Array>();
  private readonly words = new HashEmbedder();

  private gaussian(seed: number): Float32Array {
    const next = random(seed);
    const vector = new Float32Array(this.dimensions);
    for (let i = 0; i < vector.length; i++) vector[i] = Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
    return vector;
  }

  private wordVector(word: string): Float32Array {
    let vector = this.cache.get(word);
    if (vector) return vector;
    let seed = 0;
    for (let i = 0; i < word.length; i++) seed = Math.imul(seed ^ word.charCodeAt(i), 0x01000193);
    vector = this.gaussian(seed);
    const topic = wordTopic.get(word);
    const functionWord = FUNCTION_WORDS.includes(word);
    for (let i = 0; i < vector.length; i++) {
      vector[i] = functionWord ? vector[i]! * 0.05 : topic === undefined ? vector[i]! * 0.5 : this.centroids[topic]![i]! + vector[i]! * 0.7;
    }
    this.cache.set(word, vector);
    return vector;
  }

  embedOne(text: string): Float32Array {
    const sum = new Float32Array(this.dimensions);
    for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
      const vector = this.wordVector(word);
      for (let i = 0; i < sum.length; i++) sum[i]! += vector[i]!;
    }
    let norm = 0;
    for (let i = 0; i < sum.length; i++) norm += sum[i]! * sum[i]!;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < sum.length; i++) sum[i]! /= norm;
    return sum;
  }

  async embed(options: { values: string[] }) {
    return { embeddings: options.values.map((value) => this.embedOne(value)) };
  }
  countTokens(text: string) {
    return this.words.countTokens(text);
  }
  tokenize(text: string) {
    return this.words.tokenize(text);
  }
}

/** A chunk of ~60-90 words about `topic`; `next` draws the randomness (default: the corpus's shared sequence). */
export function chunkText(topic: number, next = rand): string {
  const words: string[] = [];
  const length = 60 + Math.floor(next() * 30);
  for (let i = 0; i < length; i++) {
    const r = next();
    if (r < 0.4) words.push(pick(FUNCTION_WORDS, next));
    else if (r < 0.75) words.push(topicWords[topic]![zipf(150, next)]!);
    else words.push(vocabulary[zipf(vocabulary.length, next)]!);
    if (next() < 0.08) words[words.length - 1] += '.';
  }
  if (next() < 0.02) words.push(`ERR_${pseudoWord(next).toUpperCase()}_${Math.floor(next() * 10_000)}`);
  return words.join(' ');
}

/** An 8-word natural-language query about `topic`. */
export function queryText(topic: number, next = rand): string {
  const frame = pick(
    [
      ['how', 'do', 'I', 'T', 'the', 'T', 'for', 'G'],
      ['what', 'is', 'the', 'T', 'of', 'T', 'T', 'G'],
      ['why', 'does', 'my', 'T', 'T', 'when', 'G', 'T'],
      ['where', 'can', 'I', 'find', 'T', 'and', 'T', 'T'],
    ],
    next,
  );
  return frame
    .map((slot) => (slot === 'T' ? topicWords[topic]![zipf(40, next)]! : slot === 'G' ? vocabulary[zipf(vocabulary.length, next)]! : slot))
    .join(' ');
}
