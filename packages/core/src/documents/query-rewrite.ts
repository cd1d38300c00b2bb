import { STOP_WORDS } from '../embeddings/stop-words';

/** Turns a natural-language search query into the query that is searched (`rewrite_query: true`). */
export type QueryRewriter = (query: string, signal?: AbortSignal) => Promise<string>;

/** One chat message of the rewrite prompt. */
export interface RewriteMessage {
  role: 'system' | 'user';
  content: string;
}

/** Framing words of questions and requests that carry nothing to search for, on top of the stop words. */
const FRAMING = new Set(
  (
    'whats hows wheres whos whens whys like liked love would could should wondering wonder looking look lookup search searching ' +
    'information info details detail about regarding explain describe interested curious question questions answer answers'
  ).split(' '),
);

/**
 * The rewrite used when no model is configured (`FATHOM_QUERY_REWRITE_MODEL` unset): the query's
 * content words in their order, lower-cased and each once, without stop words and question framing
 * ("I'd like to know how tall the main office building is" -> "tall main office building").
 * Quoted phrases and identifier-like words (digits, `_`, `-`, `.` inside) are kept as written.
 * A query with nothing left is searched as it was.
 */
export function lexicalRewrite(query: string): string {
  const kept: string[] = [];
  const seen = new Set<string>();
  const keep = (term: string) => {
    const folded = term.toLowerCase();
    if (!seen.has(folded)) {
      seen.add(folded);
      kept.push(term);
    }
  };
  for (const [raw, phrase] of query.matchAll(/"([^"]+)"|\S+/g)) {
    if (phrase !== undefined) {
      if (phrase.trim()) keep(`"${phrase.trim()}"`);
      continue;
    }
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (!word) continue;
    if (/[\p{N}_]|\p{L}[-.]\p{L}/u.test(word)) {
      keep(word);
      continue;
    }
    const lower = word.toLowerCase().replace(/['’]s$/, '');
    const bare = lower.replace(/['’]/g, '');
    if (STOP_WORDS.has(lower) || STOP_WORDS.has(bare) || FRAMING.has(bare) || /['’]/.test(lower) || bare.length < 2) continue;
    keep(lower);
  }
  return kept.length ? kept.join(' ') : query.trim();
}

/** The chat prompt of a model rewrite. */
export function rewritePrompt(query: string): RewriteMessage[] {
  return [
    {
      role: 'system',
      content:
        'You rewrite a user question into a short search query for a document search engine that combines keyword and ' +
        'semantic search. Keep names, numbers, identifiers and quoted phrases exactly. Drop filler and politeness. ' +
        'Answer with the query only: one line, no quotes, no explanation.',
    },
    { role: 'user', content: query },
  ];
}

/**
 * A rewriter asking a chat model (`ask` sends the prompt and returns the answer text). An empty,
 * overlong or failed answer falls back to the lexical rewrite, so search never fails because of it.
 */
export function modelQueryRewriter(
  ask: (messages: RewriteMessage[], signal?: AbortSignal) => Promise<string | null>,
  onError?: (error: unknown) => void,
): QueryRewriter {
  return async (query, signal) => {
    try {
      const answer = (await ask(rewritePrompt(query), signal))?.split('\n').find((line) => line.trim()) ?? '';
      const cleaned = answer
        .trim()
        .replace(/^["'`]+|["'`]+$/g, '')
        .trim();
      if (cleaned && cleaned.length <= Math.max(200, query.length * 2)) return cleaned;
    } catch (error) {
      onError?.(error);
    }
    return lexicalRewrite(query);
  };
}
