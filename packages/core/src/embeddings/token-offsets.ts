import type { TokenSpan } from './text-tokens';

/**
 * Maps the string tokens of a sub-word tokenizer (WordPiece `##piece`, SentencePiece `▁piece`,
 * byte-level BPE `Ġpiece`) back to character offsets in the original text. transformers.js does not
 * return offset mappings, so each piece is matched, in order, against a lower-cased, accent-free view
 * of the text; a piece that cannot be matched (e.g. `[UNK]`, byte-level fallbacks) covers the next
 * characters of its length. Offsets are therefore monotonic and always inside the text.
 */
export function alignTokens(text: string, pieces: readonly string[]): TokenSpan[] {
  // Folded view of the text with, for each folded character, the index of its source character.
  let folded = '';
  const source: number[] = [];
  for (let i = 0; i < text.length; ) {
    const codePoint = text.codePointAt(i)!;
    const width = codePoint > 0xffff ? 2 : 1;
    const char = text.slice(i, i + width);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range test starts at \x00 on purpose
    const fold = /^[\x00-\x7f]$/.test(char)
      ? char.toLowerCase()
      : char
          .toLowerCase()
          .normalize('NFD')
          .replace(/\p{M}+/gu, '');
    for (const unit of fold) {
      for (let k = 0; k < unit.length; k++) {
        folded += unit[k];
        source.push(i);
      }
    }
    i += width;
  }
  const spans: TokenSpan[] = [];
  let cursor = 0;
  const skipSpaces = () => {
    while (cursor < folded.length && /\s/.test(folded[cursor]!)) cursor++;
  };
  const endOf = (foldedEnd: number) => (foldedEnd >= source.length ? text.length : source[foldedEnd]!);
  for (const raw of pieces) {
    const piece = raw.replace(/^(##|▁|Ġ)/, '').toLowerCase();
    skipSpaces();
    if (cursor >= folded.length) {
      spans.push({ start: text.length, end: text.length });
      continue;
    }
    const start = source[cursor]!;
    if (piece && folded.startsWith(piece, cursor)) {
      cursor += piece.length;
    } else if (/^[[<].*[\]>]$/.test(piece)) {
      // Unknown-token marker ([UNK], <unk>): one punctuation character, or the rest of the word.
      if (/[\p{L}\p{N}]/u.test(folded[cursor]!)) while (cursor < folded.length && /[\p{L}\p{N}]/u.test(folded[cursor]!)) cursor++;
      else cursor++;
    } else {
      // Unmatched piece: take the next characters of its length (at least one), within the word.
      let taken = 0;
      const want = Math.max(1, piece.length);
      while (cursor < folded.length && taken < want && !/\s/.test(folded[cursor]!)) {
        cursor++;
        taken++;
      }
    }
    spans.push({ start, end: Math.max(start, endOf(cursor)) });
  }
  return spans;
}
