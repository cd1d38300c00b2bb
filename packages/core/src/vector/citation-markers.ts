/**
 * Citation markers of `file_search` passages, as OpenAI writes them: each passage fed to the model
 * starts with `【turn:index†filename】`; a model that uses the passage copies the marker into its answer,
 * and Fathom maps it back to the file (assistants keep the marker in the text with an annotation over
 * it; responses remove it and annotate the position).
 */
export function citationMarker(turn: number, index: number, filename: string): string {
  return `【${turn}:${index}†${filename.replace(/[【】]/g, '')}】`;
}

/** Matches `【turn:index†anything】`; the file name part is informative, the numbers identify the passage. */
export const CITATION_MARKER = /【(\d+):(\d+)(?:†[^【】]*)?】/g;

/** The instruction given to a model that can search the user's documents. */
export const CITATION_INSTRUCTIONS =
  "You can search the user's documents with the file_search tool. Each passage it returns starts with a " +
  'citation marker such as 【0:1†file.txt】. When your answer uses a passage, cite it by copying its marker ' +
  'exactly, right after the statement it supports. Do not invent markers.';
