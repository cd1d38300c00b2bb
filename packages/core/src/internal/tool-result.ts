/**
 * Largest tool result, in characters, that enters a model's context or a stored agent run (Webhook
 * routes, built-in tools). About 25,000 tokens: room for a large answer while a conversation that
 * carries it on every later turn still fits common context windows.
 */
export const MAX_TOOL_RESULT_CHARS = 100_000;

/** The line that ends a result cut to `maxChars`. */
export function truncationNote(maxChars: number): string {
  const limit = maxChars.toLocaleString('en-US');
  return `\n\n[Result truncated: it is longer than ${limit} characters; only the first part is shown.]`;
}

/** `text` if it fits in `maxChars`, else its beginning plus a line saying it was cut (`maxChars` in all). */
export function boundToolResult(text: string, maxChars = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= maxChars) return text;
  const note = truncationNote(maxChars);
  return text.slice(0, Math.max(0, maxChars - note.length)) + note;
}
