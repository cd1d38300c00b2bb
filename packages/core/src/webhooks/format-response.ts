import { JSONPath } from 'jsonpath-plus';

/** Non-JSON response text returned to the model, in characters. */
export const MAX_TEXT_CHARS = 5_000;
/** Error body text returned with `Error: HTTP <status> - `, in characters. */
export const MAX_ERROR_BODY_CHARS = 500;

/**
 * Applies `responseMapping` (output name -> JSONPath, evaluated by jsonpath-plus): only the declared
 * fields that match are kept; when no path matches, the full response is returned.
 */
export function mapResponse(data: unknown, mapping: Record<string, string> | undefined): unknown {
  const entries = Object.entries(mapping ?? {});
  if (entries.length === 0 || data === null || typeof data !== 'object') return data;
  const mapped: Record<string, unknown> = {};
  for (const [name, path] of entries) {
    let found: unknown;
    try {
      found = JSONPath({ path: String(path), json: data as object, wrap: false });
    } catch {
      found = undefined;
    }
    if (found !== undefined) mapped[name] = found;
  }
  return Object.keys(mapped).length > 0 ? mapped : data;
}

/**
 * The text the model receives for an answered call (spec rule 6): status >= 400 ->
 * `Error: HTTP <status> - <body cut to 500>`; JSON -> mapped, then `JSON.stringify(x, null, 2)`;
 * anything else -> the text cut to 5,000 characters. An empty success body says so.
 */
export function formatResponse(status: number, text: string, mapping?: Record<string, string>): string {
  if (status >= 400) return `Error: HTTP ${status} - ${text.slice(0, MAX_ERROR_BODY_CHARS)}`;
  if (text.trim() === '') return `(empty response, HTTP ${status})`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return text.slice(0, MAX_TEXT_CHARS);
  }
  return JSON.stringify(mapResponse(data, mapping), null, 2);
}
