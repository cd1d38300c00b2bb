import type { ChatAdapterContract, ChatToolDefinition } from '../models/types';
import { requestText } from '../transport';

/** A tool the agent service provides itself (not from a Webhook card). */
export interface BuiltInTool {
  definition: ChatToolDefinition;
  run(args: Record<string, unknown>, context: { model: string; signal: AbortSignal; accountId: string }): Promise<string>;
}

/** Longest search answer handed back to the model (characters), like a non-JSON route response. */
const MAX_SEARCH_TEXT = 5000;
/** Most bytes of a search answer read (a longer one fails the call); the model sees at most `MAX_SEARCH_TEXT` of it. */
export const MAX_SEARCH_BODY_BYTES = 1024 * 1024;
/** Longest wait for the search service's headers, and longest silence in its body, ms. */
export const SEARCH_TIMEOUT_MS = 20_000;

/** How long and how much of the search service's answer is waited for and read. */
export interface SearchLimits {
  timeoutMs: number;
  maxBodyBytes: number;
}

function summarizeTool(chat: ChatAdapterContract): BuiltInTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'summarize',
        description: 'Summarizes the given text concisely, keeping names, numbers and decisions.',
        parameters: {
          type: 'object',
          properties: { text: { type: 'string', description: 'The text to summarize.' } },
          required: ['text'],
        },
      },
    },
    async run(args, { model, signal, accountId }) {
      if (typeof args.text !== 'string' || args.text.trim() === '') return "Error: 'text' is required";
      const result = await chat.complete(
        {
          model,
          messages: [
            {
              role: 'system',
              content: 'Summarize the user text concisely. Keep names, numbers and decisions. Answer with the summary only.',
            },
            { role: 'user', content: args.text },
          ],
        },
        { signal, accountId, api: 'agents' },
      );
      return result.message.content ?? '';
    },
  };
}

/**
 * `web_search`, offered only when a search service is configured (`FATHOM_WEB_SEARCH_URL`): GET
 * `<url>?q=<query>` with `Authorization: Bearer <FATHOM_WEB_SEARCH_KEY>` when a key is set. The search
 * source is an operator setting (trusted, like a model provider); its answer goes to the model as text.
 */
function webSearchTool(url: string, key: string | undefined, limits: SearchLimits): BuiltInTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'web_search',
        description: 'Searches the web and returns the top results (titles, links and snippets).',
        parameters: {
          type: 'object',
          properties: { query: { type: 'string', description: 'What to search for.' } },
          required: ['query'],
        },
      },
    },
    async run(args, { signal }) {
      if (typeof args.query !== 'string' || args.query.trim() === '') return "Error: 'query' is required";
      const target = new URL(url);
      target.searchParams.set('q', args.query);
      try {
        const { text } = await requestText({
          url: target.toString(),
          headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          signal,
          what: 'The search service',
          displayUrl: url,
          timeoutMs: limits.timeoutMs,
          maxBodyBytes: limits.maxBodyBytes,
        });
        try {
          return JSON.stringify(JSON.parse(text), null, 2).slice(0, MAX_SEARCH_TEXT);
        } catch {
          return text.slice(0, MAX_SEARCH_TEXT);
        }
      } catch (error) {
        if (signal.aborted) throw error;
        return `Error: web search failed - ${(error as Error).message}`;
      }
    },
  };
}

/** The built-in tools of this installation: `summarize` always, `web_search` when a search service is configured. */
export function builtInTools(
  chat: ChatAdapterContract,
  webSearch?: { url: string; key?: string },
  limits: SearchLimits = { timeoutMs: SEARCH_TIMEOUT_MS, maxBodyBytes: MAX_SEARCH_BODY_BYTES },
): BuiltInTool[] {
  const tools = [summarizeTool(chat)];
  if (webSearch) tools.push(webSearchTool(webSearch.url, webSearch.key, limits));
  return tools;
}
