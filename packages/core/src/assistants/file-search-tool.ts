import type { ChatToolDefinition } from '../models/types';
import type { SearchHit, StoreSearcher } from '../vector/types';
import { citationMarker } from './citations';
import type { FileSearchResult, FileSearchToolOptions } from './types';

/** Fathom's cap on passages per file_search call (spec: at most 8; the tool's `max_num_results` may ask for fewer). */
export const MAX_FILE_SEARCH_RESULTS = 8;

/** How `file_search` is declared to the model: a function taking the query the model writes. */
export const FILE_SEARCH_FUNCTION: ChatToolDefinition = {
  type: 'function',
  function: {
    name: 'file_search',
    description:
      "Search the user's uploaded documents (semantic and keyword search). Use it whenever the answer may be in the documents. " +
      'Returns passages, each starting with a citation marker to copy into the answer.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look for, written as a search query.' } },
      required: ['query'],
    },
  },
};

export interface FileSearchInput {
  searcher: StoreSearcher;
  accountId: string;
  /** The assistant's and the thread's stores together. */
  storeIds: string[];
  options: FileSearchToolOptions | undefined;
  /** Raw JSON arguments the model sent. */
  argumentsJson: string;
  /** Number of this search within the run: the `turn` of its citation markers. */
  turn: number;
  /** How long to wait for stores still ingesting; OpenAI waits up to 60 s. */
  ingestionWaitMs: number;
}

export interface FileSearchOutcome {
  ranking: { ranker: 'auto' | 'default_2024_08_21'; score_threshold: number };
  /** Results with their content (the step strips it unless `include[]` asks for it). */
  results: FileSearchResult[];
  /** Text fed back to the model: each passage with its marker and file name. */
  output: string;
  /** Markers introduced by this search -> cited file. */
  citations: Record<string, { file_id: string; filename: string }>;
}

/** Reads the model's `{query}` argument; tolerates a bare string. */
export function parseQuery(argumentsJson: string): string {
  try {
    const parsed = JSON.parse(argumentsJson || '{}');
    if (typeof parsed === 'string') return parsed;
    if (parsed && typeof parsed.query === 'string') return parsed.query;
    if (parsed && Array.isArray(parsed.queries)) return parsed.queries.join(' ');
  } catch {
    return argumentsJson;
  }
  return '';
}

/**
 * Runs one file_search call: waits for stores still ingesting, searches all stores together (at most
 * 8 passages, fewer if the tool's `max_num_results` says so, dropping those under the score threshold),
 * and renders the passages with citation markers for the model.
 */
export async function runFileSearch(input: FileSearchInput): Promise<FileSearchOutcome> {
  const limit = Math.min(input.options?.max_num_results ?? MAX_FILE_SEARCH_RESULTS, MAX_FILE_SEARCH_RESULTS);
  const ranking = {
    ranker: input.options?.ranking_options?.ranker ?? 'auto',
    score_threshold: input.options?.ranking_options?.score_threshold ?? 0,
  };
  const query = parseQuery(input.argumentsJson).trim();
  if (!query) {
    return { ranking, results: [], output: 'file_search needs a non-empty "query" argument.', citations: {} };
  }
  if (input.storeIds.length === 0) {
    return {
      ranking,
      results: [],
      output: 'No documents are attached to this assistant or thread, so there is nothing to search.',
      citations: {},
    };
  }
  await input.searcher.waitForIngestion(input.accountId, input.storeIds, input.ingestionWaitMs);
  const hits: SearchHit[] = await input.searcher.search(input.accountId, input.storeIds, {
    query,
    maxNumResults: limit,
    scoreThreshold: ranking.score_threshold,
    ranker: 'auto',
  });
  const kept = hits.filter((hit) => hit.score >= ranking.score_threshold).slice(0, limit);
  const citations: FileSearchOutcome['citations'] = {};
  const blocks = kept.map((hit, index) => {
    citations[`${input.turn}:${index}`] = { file_id: hit.file_id, filename: hit.filename };
    const text = hit.content.map((part) => part.text).join('\n');
    return `${citationMarker(input.turn, index, hit.filename)} (file: ${hit.filename}, score: ${hit.score.toFixed(3)})\n${text}`;
  });
  const output = kept.length ? `Passages found for "${query}":\n\n${blocks.join('\n\n')}` : `No passages matched "${query}".`;
  return {
    ranking,
    results: kept.map((hit) => ({ file_id: hit.file_id, file_name: hit.filename, score: hit.score, content: hit.content })),
    output,
    citations,
  };
}
