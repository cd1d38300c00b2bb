/**
 * Rebuilds a document's parsed text from its overlapping chunks (`GET .../files/{id}/content`): each
 * chunk is an exact slice of the text, and the next one starts inside it by the overlap. Chunks that do
 * not overlap (overlap 0) are joined with a line break, since the whitespace between them is not kept.
 */
export function mergeChunks(chunks: string[]): string {
  let text = chunks[0] ?? '';
  for (let i = 1; i < chunks.length; i++) {
    const previous = chunks[i - 1]!;
    const next = chunks[i]!;
    const probe = next.slice(0, Math.min(32, next.length));
    let start = -1;
    for (let at = previous.indexOf(probe); at !== -1; at = previous.indexOf(probe, at + 1)) {
      if (next.startsWith(previous.slice(at))) {
        start = at;
        break;
      }
    }
    text += start === -1 ? `\n${next}` : next.slice(previous.length - start);
  }
  return text;
}
