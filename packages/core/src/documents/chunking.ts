import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { ChunkingStrategyParam } from './wire/vector-stores';

/** A resolved chunking strategy, as store file objects report it. */
export interface StaticChunking {
  max_chunk_size_tokens: number;
  chunk_overlap_tokens: number;
}

/** OpenAI's `auto`: 800-token chunks with 400 overlap (Fathom also fits them under the embedder's window). */
export const AUTO_CHUNKING: StaticChunking = { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 };
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

/**
 * A request's `chunking_strategy` (`auto`, `static`, or none: `auto`) as static sizes. `auto` fits under
 * `maxInputTokens`, keeping the overlap at half. The schema checks types and ranges; the rule it cannot
 * say is checked here: a static overlap is at most half the chunk size (400 naming `param`'s field).
 */
export function resolveChunking(
  strategy: ChunkingStrategyParam | null | undefined,
  maxInputTokens: number,
  param = 'chunking_strategy',
): StaticChunking {
  if (strategy?.type !== 'static') {
    const max = Math.max(1, Math.min(AUTO_CHUNKING.max_chunk_size_tokens, maxInputTokens || AUTO_CHUNKING.max_chunk_size_tokens));
    return { max_chunk_size_tokens: max, chunk_overlap_tokens: Math.min(AUTO_CHUNKING.chunk_overlap_tokens, Math.floor(max / 2)) };
  }
  const { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap } = strategy.static;
  if (overlap > max / 2) {
    throw new InvalidRequestError(
      `Invalid '${param}.static.chunk_overlap_tokens': it must not exceed half of max_chunk_size_tokens (${Math.floor(max / 2)}).`,
      `${param}.static.chunk_overlap_tokens`,
      'invalid_value',
    );
  }
  return { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap };
}

/** One chunk of text with its token count (measured with the embedder's tokenizer). */
export interface TextChunk {
  index: number;
  text: string;
  tokens: number;
  /** Character offsets of the chunk in the document (`text` is `document.slice(start, end)`). */
  start: number;
  end: number;
}

type Token = { start: number; end: number };

/** Characters tokenized at once; between segments the chunker yields to the event loop. */
const SEGMENT_CHARS = 32_768;

/**
 * Splits text into windows of at most `max_chunk_size_tokens` tokens that overlap by
 * `chunk_overlap_tokens`, preferring to end a window at a paragraph or sentence break in its last fifth.
 * Tokenizes segment by segment so a large document never blocks the event loop for long.
 */
export async function* chunkText(
  text: string,
  tokenizer: Pick<Embedder, 'tokenize'>,
  chunking: StaticChunking,
  yieldEvery: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): AsyncGenerator<TextChunk> {
  const max = chunking.max_chunk_size_tokens;
  const overlap = Math.min(chunking.chunk_overlap_tokens, Math.floor(max / 2));
  let pending: Token[] = [];
  let fresh = 0; // tokens in `pending` not covered by an emitted chunk yet
  let index = 0;
  const emit = (count: number): TextChunk => {
    const window = pending.slice(0, count);
    const start = window[0]!.start;
    const end = window[window.length - 1]!.end;
    const chunk = { index: index++, text: text.slice(start, end), tokens: count, start, end };
    const keep = Math.min(overlap, count - 1);
    pending = pending.slice(count - keep);
    fresh = pending.length - keep;
    return chunk;
  };
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SEGMENT_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      const newline = text.lastIndexOf('\n', end);
      const cut = Math.max(space, newline);
      if (cut > start + SEGMENT_CHARS / 2) end = cut + 1;
    }
    const tokens = tokenizer.tokenize(text.slice(start, end));
    for (const token of tokens) pending.push({ start: token.start + start, end: token.end + start });
    fresh += tokens.length;
    start = end;
    // Keep a window of look-ahead so the break search sees what follows.
    while (pending.length > max) yield emit(breakPoint(text, pending, max));
    if (start < text.length) await yieldEvery();
  }
  while (fresh > 0 && pending.length > 0) {
    const count = pending.length > max ? breakPoint(text, pending, max) : pending.length;
    const last = pending.length <= max;
    yield emit(count);
    if (last) break;
  }
}

/** Number of tokens to put in the next window: `max`, or fewer to end at a paragraph or sentence break. */
function breakPoint(text: string, tokens: Token[], max: number): number {
  const floor = Math.max(1, Math.floor(max * 0.8));
  let sentence = 0;
  for (let count = max; count >= floor; count--) {
    const gap = text.slice(tokens[count - 1]!.end, tokens[count]?.start ?? tokens[count - 1]!.end);
    if (gap.includes('\n\n')) return count;
    if (!sentence && (/\n/.test(gap) || /[.!?]["')\]]?$/.test(text.slice(tokens[count - 1]!.start, tokens[count - 1]!.end)))) {
      sentence = count;
    }
  }
  return sentence || max;
}
