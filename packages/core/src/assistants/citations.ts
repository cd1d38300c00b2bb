import { CITATION_INSTRUCTIONS, CITATION_MARKER, citationMarker } from '../vector/citation-markers';
import type { FileCitationAnnotation } from './types';

export { CITATION_INSTRUCTIONS, citationMarker };

/**
 * Maps the markers the model copied into its answer back to the cited files: one `file_citation`
 * annotation per marker whose `{turn}:{index}` names a passage this run fed to the model. Unknown
 * markers (invented by the model) are left as text without annotation.
 */
export function annotateCitations(text: string, citations: Record<string, { file_id: string }>): FileCitationAnnotation[] {
  const annotations: FileCitationAnnotation[] = [];
  for (const match of text.matchAll(CITATION_MARKER)) {
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
