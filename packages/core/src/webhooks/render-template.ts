import type { WebhookParameter } from './types';

/** `{{name}}`, spaces inside the braces tolerated. */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** The same pattern, anchored at `lastIndex` (for the body scanner). */
const PLACEHOLDER_AT = new RegExp(PLACEHOLDER.source, 'y');

export type Arguments = Record<string, unknown>;

/** A value the model filled (undefined and null count as unfilled). */
export function isFilled(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Names of the placeholders in a template, in order of appearance. */
export function placeholderNames(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** A value as text for path and query placement: strings as they are, everything else as JSON. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Path placement: each value is percent-encoded (`/`, `?`, `#`, `%` included) so it stays inside its
 * segment. Returns the missing names instead when a placeholder has no value, or a refused name when a
 * value would form a `.` or `..` segment (which URL parsing would collapse).
 */
export function renderPath(path: string, args: Arguments): { path: string } | { missing: string[] } | { dotSegment: string } {
  const missing = placeholderNames(path).filter((name) => !isFilled(args[name]) || textOf(args[name]) === '');
  if (missing.length) return { missing: [...new Set(missing)] };
  let dotSegment: string | undefined;
  const rendered = path.replace(PLACEHOLDER, (_match, name: string) => {
    const text = textOf(args[name]);
    if (text === '.' || text === '..') dotSegment = name;
    return encodeURIComponent(text);
  });
  return dotSegment ? { dotSegment } : { path: rendered };
}

/** Query placement: textual substitution in each value; an entry with an unfilled placeholder is removed. */
export function renderQuery(queryParams: Record<string, string> | undefined, args: Arguments): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const [key, template] of Object.entries(queryParams ?? {})) {
    const text = String(template);
    if (placeholderNames(text).some((name) => !isFilled(args[name]))) continue;
    entries.push([key, text.replace(PLACEHOLDER, (_match, name: string) => textOf(args[name]))]);
  }
  return entries;
}

type ParameterType = NonNullable<WebhookParameter['type']>;

/** Coerces a value toward its declared type when the model sent it as text ("42", "true", "[1]"). */
function coerce(value: unknown, type: ParameterType | undefined): unknown {
  if (typeof value !== 'string' || !type || type === 'string') return value;
  const trimmed = value.trim();
  if (type === 'number' && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (type === 'boolean' && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if (type === 'array' || type === 'object') {
    try {
      const parsed = JSON.parse(trimmed);
      if (type === 'array' ? Array.isArray(parsed) : parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
    } catch {
      // keep the text
    }
  }
  return value;
}

/** JSON for a value; non-finite numbers become null (JSON has no NaN). */
function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/**
 * The JSON token replacing a placeholder. `quoted` = the placeholder is a whole JSON string (`"{{x}}"`):
 * strings stay strings (escaped), numbers become strings, booleans/arrays/objects become real JSON.
 * Unquoted: strings are quoted and escaped, numbers/booleans/arrays/objects are real JSON. Unfilled -> null.
 * Every replacement is produced by JSON.stringify, so no value can add keys or close a string.
 */
function token(value: unknown, type: ParameterType | undefined, quoted: boolean): string {
  if (!isFilled(value)) return 'null';
  const typed = coerce(value, type);
  if (quoted && (type === 'number' || (type === undefined && typeof typed === 'number'))) return json(String(typed));
  if (quoted && (type === 'string' || typeof typed === 'string')) return json(String(typed));
  if (type === 'string') return json(textOf(typed));
  return json(typed);
}

/**
 * Body placement: walks the template tracking JSON strings. A placeholder that is a whole string
 * (`"{{x}}"`) or stands alone is replaced by a JSON token (see `token`); one inside a longer string
 * (`"Dear {{name}}!"`) is replaced by its text escaped as string content (unfilled -> empty).
 */
export function renderBody(template: string, args: Arguments, parameters: WebhookParameter[] = []): string {
  const types = new Map(parameters.map((parameter) => [parameter.name, parameter.type ?? 'string'] as const));
  let output = '';
  let inString = false;
  let stringStart = -1;
  let index = 0;
  while (index < template.length) {
    const char = template[index]!;
    if (inString && char === '\\') {
      output += template.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (char === '{' && template[index + 1] === '{') {
      PLACEHOLDER_AT.lastIndex = index;
      const found = PLACEHOLDER_AT.exec(template);
      if (found) {
        const name = found[1]!;
        const end = index + found[0].length;
        const value = args[name];
        const type = types.get(name);
        if (inString && stringStart === index - 1 && template[end] === '"') {
          output = output.slice(0, -1) + token(value, type, true);
          index = end + 1;
          inString = false;
        } else if (inString) {
          output += isFilled(value) ? json(textOf(coerce(value, type))).slice(1, -1) : '';
          index = end;
        } else {
          output += token(value, type, false);
          index = end;
        }
        continue;
      }
    }
    if (char === '"') {
      inString = !inString;
      stringStart = index;
    }
    output += char;
    index++;
  }
  return output;
}
