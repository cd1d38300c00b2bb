/**
 * Model-free tokenization shared by the hash and OpenAI-compatible embedders: words (letters, digits,
 * marks) and single punctuation characters, with their character offsets in the original text.
 */
export interface TokenSpan {
  start: number;
  end: number;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

/** Words and punctuation marks of `text`, as character offsets. */
export function wordSpans(text: string): TokenSpan[] {
  const spans: TokenSpan[] = [];
  for (const match of text.matchAll(TOKEN)) spans.push({ start: match.index, end: match.index + match[0].length });
  return spans;
}

/**
 * Approximates a sub-word (BPE/WordPiece) tokenizer when the real one is not at hand: words up to
 * `pieceLength` characters are one token, longer ones are cut into pieces of that length.
 */
export function approximateSubwordSpans(text: string, pieceLength = 4): TokenSpan[] {
  const spans: TokenSpan[] = [];
  for (const word of wordSpans(text)) {
    for (let start = word.start; start < word.end; start += pieceLength) {
      spans.push({ start, end: Math.min(word.end, start + pieceLength) });
    }
  }
  return spans;
}

/** Lower case without diacritics, as SQLite's unicode61 tokenizer with `remove_diacritics 2` folds words. */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  // Fast path: plain ASCII needs no normalization.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range test starts at \x00 on purpose
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize('NFD').replace(/\p{M}+/gu, '');
}

/** Scales `vector` in place to unit length (a zero vector stays zero). */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
  return vector;
}
