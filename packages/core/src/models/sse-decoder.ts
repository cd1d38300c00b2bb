/** One decoded server-sent event. `event` is undefined for plain `data:` events. */
export interface DecodedSseEvent {
  event?: string;
  data: string;
}

/**
 * Decodes server-sent events (as model providers send them) chunk by chunk, synchronously: `push`
 * returns the events a chunk completed, `end` those left when the body ends. Copes with events and
 * lines split across chunks, CRLF or LF line ends, multi-line `data:` fields and comments. A
 * provider calls it in its own read loop, so a stream of many small events costs no extra promise
 * per event.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event: string | undefined;
  private data: string[] = [];

  push(chunk: Uint8Array | string): DecodedSseEvent[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const events: DecodedSseEvent[] = [];
    let start = 0;
    for (;;) {
      const newline = this.buffer.indexOf('\n', start);
      if (newline === -1) break;
      const end = newline > start && this.buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      const decoded = this.line(this.buffer.slice(start, end));
      start = newline + 1;
      if (decoded) events.push(decoded);
    }
    this.buffer = start === this.buffer.length ? '' : this.buffer.slice(start);
    return events;
  }

  end(): DecodedSseEvent[] {
    this.buffer += this.decoder.decode();
    const events: DecodedSseEvent[] = [];
    if (this.buffer) {
      const decoded = this.line(this.buffer.replace(/\r$/, ''));
      this.buffer = '';
      if (decoded) events.push(decoded);
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private dispatch(): DecodedSseEvent | undefined {
    const result = this.data.length
      ? { event: this.event, data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') }
      : undefined;
    this.event = undefined;
    this.data = [];
    return result;
  }

  private line(line: string): DecodedSseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    return undefined;
  }
}

/** The events of a byte stream of server-sent events, one by one (see `SseDecoder`). */
export async function* decodeSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<DecodedSseEvent> {
  const decoder = new SseDecoder();
  for await (const chunk of chunks) yield* decoder.push(chunk);
  yield* decoder.end();
}
