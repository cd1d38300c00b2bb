import { STOP_WORDS } from '../embeddings/stop-words';
import { foldWord } from '../embeddings/text-tokens';

/** One unit of a keyword query: a word (with its inflected forms) or an exact phrase / identifier. */
export interface QueryGroup {
  kind: 'term' | 'phrase';
  /** `term`: the word and candidate inflections; `phrase`: the words in order. */
  words: string[];
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

const ASCII_WORD = /[a-z0-9]+/g;

/** Words of `text` as SQLite's unicode61 tokenizer (remove_diacritics 2) sees them. */
export function keywordTokens(text: string): string[] {
  const lower = text.toLowerCase();
  // Fast path for plain ASCII text (most chunks): no Unicode classes, no folding needed.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range test starts at \x00 on purpose
  if (!/[^\x00-\x7f]/.test(lower)) return lower.match(ASCII_WORD) ?? [];
  return (text.match(WORD) ?? []).map(foldWord);
}

/** A light English stemmer's candidates: the word, its stem, and the common inflections of the stem. */
export function inflections(word: string): string[] {
  const forms = new Set([word]);
  if (word.length < 4 || /\d/.test(word)) return [...forms];
  let stem = word;
  if (word.endsWith('ies') && word.length > 4) stem = `${word.slice(0, -3)}y`;
  else if (/(ches|shes|sses|xes|zes)$/.test(word)) stem = word.slice(0, -2);
  else if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) stem = word.slice(0, -1);
  else if (word.endsWith('ing') && word.length > 5) stem = word.slice(0, -3);
  else if (word.endsWith('ed') && word.length > 4) stem = word.slice(0, -2);
  forms.add(stem);
  const base = stem.endsWith('e') ? stem.slice(0, -1) : stem;
  const y = stem.endsWith('y') ? stem.slice(0, -1) : null;
  for (const form of [`${stem}s`, `${stem}es`, `${base}ed`, `${base}ing`, `${base}e`, `${base}ion`, `${base}ions`]) forms.add(form);
  if (y) forms.add(`${y}ies`).add(`${y}ied`);
  return [...forms].slice(0, 12);
}

/**
 * Parses a natural-language query into groups: quoted text and identifier-like runs (`ERR_QUOTA_7731`,
 * `v2.3.1`, `foo-bar`) become exact phrases; other words become terms, stop words dropped.
 */
export function parseKeywordQuery(query: string): QueryGroup[] {
  const groups: QueryGroup[] = [];
  const seen = new Set<string>();
  const push = (group: QueryGroup) => {
    const key = `${group.kind}:${group.words.join(' ')}`;
    if (!seen.has(key)) {
      seen.add(key);
      groups.push(group);
    }
  };
  const rest = query.replace(/"([^"]+)"/g, (_, phrase: string) => {
    const words = keywordTokens(phrase);
    if (words.length > 1) push({ kind: 'phrase', words });
    else if (words.length === 1) push({ kind: 'term', words });
    return ' ';
  });
  for (const run of rest.split(/\s+/)) {
    const words = keywordTokens(run);
    if (words.length > 1) {
      push({ kind: 'phrase', words });
      continue;
    }
    const word = words[0];
    if (!word || STOP_WORDS.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    push({ kind: 'term', words: inflections(word) });
  }
  return groups;
}

/** Quotes a word or phrase for an FTS5 MATCH expression. */
export function ftsString(words: string[]): string {
  return `"${words.join(' ').replace(/"/g, '""')}"`;
}
