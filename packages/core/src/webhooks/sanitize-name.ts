/** Longest tool name the spec (and OpenAI-compatible providers) accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * The spec's name sanitization: remove accents, lowercase, spaces and hyphens to `_`, at most 64
 * characters. Characters that remain outside `[a-z0-9_]` (e.g. `.`, `/`, `?`) are dropped as well, since
 * providers reject them in function names; an empty result becomes `route`.
 */
export function sanitizeToolName(name: string): string {
  const cleaned = String(name)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s-]/g, '_')
    .replace(/[^a-z0-9_]/g, '')
    .slice(0, MAX_TOOL_NAME_LENGTH);
  return cleaned || 'route';
}
