import type { FileCitationAnnotation } from './types';

/** The marker placed before each passage fed to the model, e.g. `【0:2†handbook.md】`, as OpenAI writes them. */
export function citationMarker(turn: number, index: number, filename: string): string {
  return `【${turn}:${index}†${filename.replace(/[【】]/g, '')}】`;
}

/** Matches `【turn:index†anything】`; the file name part is informative, the numbers identify the passage. */
const MARKER = /【(\d+):(\d+)(?:†[^【】]*)?】/g;

/**
 * Maps the markers the model copied into its answer back to the cited files: one `file_citation`
 * annotation per marker whose `{turn}:{index}` names a passage this run fed to the model. Unknown
 * markers (invented by the model) are left as text without annotation.
 */
export function annotateCitations(text: string, citations: Record<string, { file_id: string }>): FileCitationAnnotation[] {
  const annotations: FileCitationAnnotation[] = [];
  for (const match of text.matchAll(MARKER)) {
    const cited = citations[`${match[1]}:${match[2]}`];
    if (!cited) continue;
    annotations.push({
      type: 'file_citation',
      text: match[0],
      start_index: match.index!,
      end_index: match.index! + match[0].length,
      file_citation: { file_id: cited.file_id },
    });
  }
  return annotations;
}

/** The instruction added to the system prompt when file_search is enabled. */
export const CITATION_INSTRUCTIONS =
  "You can search the user's documents with the file_search tool. Each passage it returns starts with a " +
  'citation marker such as 【0:1†file.txt】. When your answer uses a passage, cite it by copying its marker ' +
  'exactly, right after the statement it supports. Do not invent markers.';
