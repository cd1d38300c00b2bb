import { JSONPath } from 'jsonpath-plus';
import { formatJsonBounded } from '../internal/bounded-json';
import { truncationNote } from '../internal/tool-result';

/** Non-JSON response text returned to the model, in characters. */
export const MAX_TEXT_CHARS = 5_000;
/** Error body text returned with `Error: HTTP <status> - `, in characters. */
export const MAX_ERROR_BODY_CHARS = 500;
/** Values one `responseMapping` path may match; the rest are left out (and the result says so). */
export const MAX_MAPPING_MATCHES = 10_000;
/** Characters kept for the notes that end a JSON result (mapping left out, result cut). */
const NOTES_CHARS = 1_000;

/** What a JSON answer is rendered with: the mapping as `[name, path]` pairs and the limits. */
export interface RenderTask {
  text: string;
  mapping: Array<[string, string]>;
  /** The whole result, notes included, in characters. */
  maxChars: number;
  maxMatches: number;
  /** Said at the end of the result (e.g. why the mapping was not applied). */
  notes?: string[];
}

/**
 * A path of names and indexes only (`$.order.id`, `$.items[0]['sku']`): it reads at most one value
 * per step, so the calling thread may evaluate it. Anything else (`..`, `*`, filters, unions, slices)
 * can visit the response combinatorially and runs in a worker with a deadline.
 */
export function isPlainPath(path: string): boolean {
  return /^\$(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\['[^'\\\]]*'\]|\["[^"\\\]]*"\])*$/.test(path);
}

const STOP = Symbol('enough matches');

/** One path's value like jsonpath-plus with `wrap: false`, keeping at most `maxMatches` matches. */
function evaluatePath(data: object, path: string, maxMatches: number): { found: unknown; capped: boolean } {
  const matches: Array<{ value: unknown; hasArrExpr?: boolean }> = [];
  let capped = false;
  try {
    JSONPath({
      path,
      json: data,
      wrap: true,
      callback: (value: unknown, _type: unknown, full: { hasArrExpr?: boolean; isParentSelector?: boolean }) => {
        if (full?.isParentSelector) return;
        if (matches.length >= maxMatches) {
          capped = true;
          throw STOP;
        }
        matches.push({ value, hasArrExpr: full?.hasArrExpr });
      },
    });
  } catch (error) {
    if (error !== STOP) return { found: undefined, capped: false };
  }
  if (matches.length === 0) return { found: undefined, capped };
  if (matches.length === 1 && !matches[0]!.hasArrExpr) return { found: matches[0]!.value, capped };
  return { found: matches.map((match) => match.value), capped };
}

/**
 * Renders a successful answer's body (spec rule 6): JSON is mapped by `responseMapping` (only the
 * declared fields that match; the full response when none does) and laid out with two-space indents,
 * cut to `maxChars`; anything else is text cut to 5,000 characters. The notes at the end say what
 * was left out. Runs on the calling thread for plain paths and in the mapping worker otherwise.
 */
export function renderSuccessBody(task: RenderTask): string {
  let data: unknown;
  try {
    data = JSON.parse(task.text);
  } catch {
    return task.text.slice(0, MAX_TEXT_CHARS);
  }
  const notes = [...(task.notes ?? [])];
  let value = data;
  if (task.mapping.length > 0 && data !== null && typeof data === 'object') {
    const mapped: Record<string, unknown> = {};
    for (const [name, path] of task.mapping) {
      const { found, capped } = evaluatePath(data, path, task.maxMatches);
      if (found === undefined) continue;
      mapped[name] = found;
      if (capped) {
        const limit = task.maxMatches.toLocaleString('en-US');
        notes.push(`responseMapping '${name}' matched more than ${limit} values; only the first ${limit} are kept.`);
      }
    }
    if (Object.keys(mapped).length > 0) value = mapped;
  }
  let tail = notes.map((note) => `\n[${note}]`).join('');
  if (tail.length > NOTES_CHARS) tail = `${tail.slice(0, NOTES_CHARS - 1)}…`;
  const json = formatJsonBounded(value, Math.max(0, task.maxChars - tail.length - NOTES_CHARS));
  return json.text + (json.truncated ? truncationNote(task.maxChars) : '') + (tail ? `\n${tail}` : '');
}

/** `responseMapping` as `[name, path]` pairs (non-string paths are skipped). */
export function mappingEntries(mapping: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(mapping ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

export interface FormatOptions {
  /** Largest result, notes included, in characters. */
  maxChars: number;
  maxMatches: number;
  /** Renders a task whose mapping is not plain off the calling thread, under a deadline and a memory cap. */
  renderOffThread(task: RenderTask): Promise<string>;
}

/**
 * The text the model receives for an answered call (spec rule 6): status >= 400 ->
 * `Error: HTTP <status> - <body cut to 500>`; an empty success body says so; otherwise `renderSuccessBody`,
 * in a worker when a mapping path is not plain.
 */
export async function formatResponse(
  status: number,
  text: string,
  mapping: Record<string, string> | undefined,
  options: FormatOptions,
): Promise<string> {
  if (status >= 400) return `Error: HTTP ${status} - ${text.slice(0, MAX_ERROR_BODY_CHARS)}`;
  if (text.trim() === '') return `(empty response, HTTP ${status})`;
  const task: RenderTask = { text, mapping: mappingEntries(mapping), maxChars: options.maxChars, maxMatches: options.maxMatches };
  if (task.mapping.every(([, path]) => isPlainPath(path))) return renderSuccessBody(task);
  return options.renderOffThread(task);
}
