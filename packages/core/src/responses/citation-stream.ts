import { CITATION_MARKER } from '../vector';

/** A `file_citation` annotation of Responses `output_text`: the cited file and where in the text it applies. */
export interface FileCitation {
  type: 'file_citation';
  file_id: string;
  filename: string;
  index: number;
}

/** Longest text held back while waiting for the end of what may be a citation marker. */
const MAX_MARKER = 200;
const MARKER = new RegExp(`^${CITATION_MARKER.source}$`);

/**
 * Removes citation markers (`【turn:index†file】`) from a streamed answer as it arrives and reports a
 * `file_citation` annotation at the position of each known one, so deltas, the final text and the
 * annotations agree. A marker split across deltas is held back until it closes; markers the model
 * invented (no such passage) stay in the text.
 */
export class CitationStream {
  #pending = '';
  #length = 0;
  readonly annotations: FileCitation[] = [];

  constructor(private readonly passages: ReadonlyMap<string, { file_id: string; filename: string }>) {}

  /** Feeds a delta; answers the text to emit now and the annotations it completed. */
  push(delta: string): { text: string; annotations: FileCitation[] } {
    let buffer = this.#pending + delta;
    this.#pending = '';
    let text = '';
    const found: FileCitation[] = [];
    for (;;) {
      const open = buffer.indexOf('【');
      if (open < 0) {
        text += buffer;
        break;
      }
      text += buffer.slice(0, open);
      const close = buffer.indexOf('】', open);
      if (close < 0) {
        const rest = buffer.slice(open);
        if (rest.length > MAX_MARKER) text += rest;
        else this.#pending = rest;
        break;
      }
      const marker = buffer.slice(open, close + 1);
      const match = MARKER.exec(marker);
      const passage = match ? this.passages.get(`${match[1]}:${match[2]}`) : undefined;
      if (passage) {
        const annotation: FileCitation = {
          type: 'file_citation',
          file_id: passage.file_id,
          filename: passage.filename,
          index: this.#length + text.length,
        };
        found.push(annotation);
        this.annotations.push(annotation);
      } else {
        text += marker;
      }
      buffer = buffer.slice(close + 1);
    }
    this.#length += text.length;
    return { text, annotations: found };
  }

  /** Ends the stream: a held-back unfinished marker is emitted as text. */
  end(): string {
    const rest = this.#pending;
    this.#pending = '';
    this.#length += rest.length;
    return rest;
  }
}
